Feature: Agent steps let Gemini choose browser actions inside the recipe's guardrails
  An agent step hands a task to the model: each turn it may call one tool, every call passes the
  same guards, approvals and limits as plan steps, and the step is done only when its done_when
  conditions hold on the page after the model calls close. The model here is the real
  google-genai client talking to a scripted Gemini server on loopback.

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

  @EXEC-020
  Scenario: A model that calls a tool the intent guard refuses stops the run
    Given the model will first call "browser_extract" to read the heading
    When I run "agent-out-of-scope" against the demo site
    Then the run ends "error" with stop reason "tool_policy_blocked"
    And the guardrail "intentGuard" tripped for the model's "browser_extract"
    And no "extract" action ran

  @EXEC-020
  Scenario: A model that calls a tool its step does not offer stops the run
    Given the model will first call "browser_click" on the text "Gold spot quote"
    When I run "agent-short" against the demo site
    Then the run ends "error" with stop reason "tool_policy_blocked"
    And the guardrail "agent.tools" tripped for the model's "browser_click"
    And no "act" action ran

  @EXEC-020
  Scenario: A click the model chooses waits for a person, and a denial stops the run
    Given the model will first take a snapshot
    And the model will then say "The live quote is the third result." and click the "Gold spot quote" link by its ref
    When I start "agent-approval" against the demo site
    Then the run waits for confirmation of the model's "browser_click"
    When I deny the pending request because "not that link"
    Then the run ends "error" with stop reason "approval_denied"
    And no "act" action ran

  @EXEC-020
  Scenario: A manual stop while the model is answering ends the run at once
    Given the model will first take 600 seconds to answer
    When I start "agent-quote" against the demo site
    And the model is answering
    And I stop the run
    Then the run ends "stopped" with stop reason "manual_stop" before the model answers
    And the agent step "find" ended "cancelled"

  @EXEC-021
  Scenario: A model that keeps clicking a button that changes nothing stops with no_progress
    Given the model will first click the element with css "#noop" 3 times
    When I run "agent-no-progress" against the fixture site
    Then the run ends "error" with stop reason "no_progress"
    And the model was asked 3 times

  @EXEC-021 @EXEC-018
  Scenario: A model that never closes runs out of turns
    Given the model will first take a snapshot
    And the model will then take a snapshot
    When I run "agent-short" against the demo site
    Then the run ends "error" with stop reason "max_steps_exceeded"
    And the verdict says the model used all 2 turns
    And every request went to the step's model "gemini-fixture-pro"

  @EXEC-021
  Scenario: The model's tool calls count against the run's max_steps
    Given the model will first click the element with css "#count" 2 times
    When I run "agent-run-budget" against the fixture site
    Then the run ends "error" with stop reason "max_steps_exceeded"
    And the verdict says the run used 4 steps, "1 agent tool call(s)"
    And the model's clicks reached the page 1 time

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

  @EXEC-024
  Scenario: Without an API key a plan with agent steps fails at preflight
    Given the environment holds no Gemini API key
    When I run "agent-quote" against the demo site
    Then the run ends "error" with stop reason "invalid_input"
    And the verdict says to set "GEMINI_API_KEY" or "GOOGLE_API_KEY"
    And no state ran after "intent.preflight"
    And the model was asked 0 times

  @EXEC-024
  Scenario: A model error ends the agent step with its code
    Given the model will first fail with HTTP 503
    When I run "agent-quote" against the demo site
    Then the run ends "error" with stop reason "execute_error"
    And the agent step "find" failed with the model error "server_error"
    And a structured error output reported "server_error"

  @EXEC-025 @EXEC-026
  Scenario: verity run writes a trace of an agent run, and the key appears nowhere
    Given the model will first take a snapshot
    And the model will then say "The live quote is the third result." and click the "Gold spot quote" link by its ref
    And the model will then close saying "Opened the gold quote"
    When I run "verity run" on "agent-quote" against the demo site with the key in its environment
    Then the command exits 0 and names its trace file
    And the trace is one tree of spans rooted at "invoke_agent agent-quote" with the trace id of the events
    And the trace has 3 "verity.agent.turn" spans under the span of state "find"
    And the API key appears in no event, run file, trace or command output
