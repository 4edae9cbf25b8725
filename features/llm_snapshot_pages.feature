Feature: An agent reads the page as its accessibility tree and reaches any element of a big page
  The page section of every request is the tab's accessibility tree, written again whenever the
  page changed. The model narrows it with browser_snapshot (ref, depth, start) and searches it with
  browser_find; refs from either act. The model here is the real google-genai client talking to a
  scripted Gemini server on loopback.

  Background:
    Given a Gemini server on loopback and an API key in the environment

  @LLM-012
  Scenario: A model finds a row by search, clicks its ref, and opens the rows a collapsed line names
    Given the model will first find "open 250" in the tree
    And the model will then click the "Open 250" button by the ref it found
    And the model will then follow the collapsed rows line of the page section
    And the model will then close saying "Opened order 250"
    When I run "agent-tree" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And every request's page section was the page tree, and a new one after the click changed the page
    And the last request showed the rows from "Order 4" under the collapsed line's ref, beside the whole tree
    And no request held the page's hidden "Assistant instructions"
    And the model was offered browser_snapshot with ref, depth and start, and browser_find
