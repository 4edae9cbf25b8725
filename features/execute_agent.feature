Feature: Agent steps let Gemini choose browser actions inside the recipe's guardrails
  An agent step hands a task to the model: each turn it may call one tool, every call passes the
  same guards, approvals and limits as plan steps, and the step is done only when its done_when
  conditions hold on the page after the model calls close. The model here is the real
  google-genai client talking to a scripted Gemini server on loopback. The guards, the errors
  and the trace of agent steps have features of their own (execute_agent_*.feature).

  Background:
    Given a Gemini server on loopback and an API key in the environment

  @EXEC-018 @EXEC-023 @EXEC-025
  Scenario: A model that looks, clicks the right result by its ref and closes completes the run
    Given every log record is captured
    And the model will first only say "Let me look " "at the results."
    And the model will then take a snapshot
    And the model will then say "The live quote is the third result." and click the "Gold spot quote" link by its ref
    And the model will then close saying "Opened the gold quote"
    When I run "agent-quote" against the demo site
    Then the run ends "completed" with stop reason "completed"
    And the output price is 2345.6
    And the agent step "find" verified after 4 turns
    And the chat deltas were "Let me look ", "at the results." and "The live quote is the third result."
    And the turns' agent states show the thinking and the tool call "browser_click"
    And each tool call was reported as started and succeeded
    And the model was nudged once and saw the snapshot's refs in its prompt
    And the API key appears in no log record, event or run file

  @EXEC-019
  Scenario: A model that closes without doing the work fails verification
    Given the model will first close saying "Done"
    When I run "agent-quote" against the demo site
    Then the run ends "error" with stop reason "verification_failed"
    And the verdict lists the failed conditions "url_matches" and "title_includes"
    And no "extract" action ran

  @EXEC-022
  Scenario: A model whose click hits a stale ref gets the error back and recovers
    Given the model will first take a snapshot
    And the model will then take a snapshot
    And the model will then click the "Gold spot quote" link by its ref from the older snapshot
    And the model will then, seeing the error "stale_ref", take a snapshot
    And the model will then say "Fresh refs now." and click the "Gold spot quote" link by its ref
    And the model will then close saying "Recovered from a stale ref"
    When I run "agent-quote" against the demo site
    Then the run ends "completed" with stop reason "completed"
    And every function response the model got was compact
    And the model's clicks were reported as an error "stale_ref" and then a success

  @EXEC-022
  Scenario: A model that tries to leave the allowed domains is refused and told why
    Given the model will first open "http://example.org/quotes/gold"
    And the model will then, seeing the error "domain_not_allowed", open the gold quote page on the quote host
    And the model will then close saying "Opened the quote page directly"
    When I run "agent-quote" against the demo site
    Then the run ends "completed" with stop reason "completed"
    And the model's open_url calls were refused once and then loaded the quote page with HTTP 200
