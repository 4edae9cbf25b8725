Feature: People and policies stay in control of a run
  Approvals pause a run until a person answers; a manual stop ends it at once and keeps what it
  wrote; a dead browser, a refused tool or a browser task without a browser tool end it with
  their own stop reasons.

  @EXEC-008
  Scenario: An approved step resumes the run
    When I start "approval" against the quote site
    Then the run waits for confirmation of "browser_navigate"
    And answering an unknown request is refused
    When I approve the pending request
    Then the run ends "completed" with stop reason "completed"
    And the status went from waiting_for_user_confirmation back to running

  @EXEC-008
  Scenario: A denied step stops the run
    When I start "approval" against the quote site
    Then the run waits for confirmation of "browser_navigate"
    When I deny the pending request because "not today"
    Then the run ends "error" with stop reason "approval_denied"
    And no page was opened

  @EXEC-009
  Scenario: A manual stop ends a run stuck on a page, keeping its run directory
    When I start "hang" against the fixture site
    And the run is loading the page
    And I stop the run
    Then the run ends "stopped" with stop reason "manual_stop" before the page's step timeout of 60 seconds
    And the run directory keeps the events, executions and verdict
    And the final verdict is the last event, exactly once

  @EXEC-010
  Scenario: Killing the browser mid-run ends the run with browser_crashed
    When I start "hang" on a browser of its own
    And the run is loading the page
    And the browser process is killed
    Then the run ends "error" with stop reason "browser_crashed"
    And the final verdict is the last event, exactly once

  @EXEC-011
  Scenario: The intent guard refuses an out-of-scope tool on a browser task
    When I run "guard-blocks-tool" against the quote site
    Then the run ends "error" with stop reason "tool_policy_blocked"
    And the guardrail "intentGuard" tripped for "browser_extract"
    And no "extract" action ran

  @EXEC-012
  Scenario: A browser task without any browser tool fails at preflight
    When I run "no-browser-tool" against the quote site
    Then the run ends "error" with stop reason "intent_execution_failed"
    And the step "intent.preflight" was blocked naming the available tools
    And no page was opened

  @EXEC-027
  Scenario: The model detector classifies a goal the keywords do not settle
    Given a Gemini server on loopback and an API key in the environment
    And Gemini will classify the goal as "browser_access"
    When I run "model-detector" against the quote site
    Then the run ends "error" with stop reason "intent_execution_failed"
    And Gemini was asked to classify the goal once
