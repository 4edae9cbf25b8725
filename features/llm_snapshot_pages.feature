Feature: An agent reaches any element of a big page by paging and filtering its snapshot
  The agent's browser_snapshot tool takes the snapshot_id it already has with start, role, text or
  within: it sees another page of the same snapshot, and the refs of every page stay valid. The
  model here is the real google-genai client talking to a scripted Gemini server on loopback.

  Background:
    Given a Gemini server on loopback and an API key in the environment

  @LLM-012
  Scenario: A model filters its snapshot by role and text and clicks a ref from the filtered page
    Given the model will first take a snapshot
    And the model will then show the same snapshot's links whose text contains "gold spot"
    And the model will then click the "Gold spot quote" link by its ref from the filtered page
    And the model will then close saying "Opened the gold quote"
    When I run "agent-quote" against the demo site
    Then the run ends "completed" with stop reason "completed"
    And the model's filtered page listed only links with "gold spot" in them, under the first snapshot's id
    And the model was offered browser_snapshot with snapshot_id, start, role, text and within
