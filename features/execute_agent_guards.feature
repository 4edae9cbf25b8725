Feature: Every tool call an agent step's model makes passes the recipe's guardrails and limits
  The model's calls pass the same guards, approvals and limits as plan steps: a tool the step does
  not offer or the intent guard refuses stops the run, a click that needs approval waits for a
  person, a manual stop ends the run at once, and a model that makes no progress, never closes or
  spends the run's max_steps is stopped. The model here is the real google-genai client talking to
  a scripted Gemini server on loopback.

  Background:
    Given a Gemini server on loopback and an API key in the environment

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
