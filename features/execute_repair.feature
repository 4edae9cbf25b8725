Feature: A failed step is repaired by an agent only on the ADR's three triggers
  A recipe or a step may say `repair: {with: agent}`. When a plan step ends in execute_error,
  verification_failed or no_progress, and only then, an agent is briefed on the failure and acts
  within the step's guards; the step's own verification, never the agent's word, says whether it
  was repaired. The model is the real google-genai client talking to a scripted Gemini server on
  loopback; the pages are real Chromium.

  Background:
    Given a Gemini server on loopback and an API key in the environment

  @REPAIR-002 @REPAIR-003
  Scenario: An act that fails with execute_error is repaired, judged by its own expect
    Given the repairing model will click the element with css "#save" and close
    When I run "repair-act" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And "save" was repaired from "execute_error" in 1 attempt by its own conditions
    And the repairing model was briefed on "save" failing with "execute_error"
    And the repair is recorded in the events, the span and the report

  @REPAIR-002
  Scenario: A verify step that fails is repaired, judged by its own conditions
    Given the repairing model will click the element with css "#save" and close
    When I run "repair-verify" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And "saved" was repaired from "verification_failed" in 1 attempt by its own conditions

  @REPAIR-002
  Scenario: An agent step stopped by no_progress is repaired, judged by its done_when
    Given the step's model will click the element with css "#noop" 2 times
    And the repairing model will click the element with css "#save" and close
    When I run "repair-no-progress" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And "save" was repaired from "no_progress" in 1 attempt by its own conditions

  @REPAIR-004
  Scenario: A repair the step's own verification does not confirm ends the run with the step's stop reason
    Given the repairing model will only close saying "Saved, trust me"
    When I run "repair-verify" against the fixture site
    Then the run ends "error" with stop reason "verification_failed"
    And the verdict carries the repair's evidence: 1 attempt, not repaired

  @REPAIR-005
  Scenario Outline: A page blocker never starts a repair: <blocker>
    Given the agent corpus site
    When the agent corpus case "<case>" runs with repair on every trigger
    Then the run ends "replans_exhausted" with blocker "<blocker>", no repair ran and the model was asked only by the step

    Examples:
      | case                              | blocker            |
      | login-wall                        | login_required     |
      | form-sent-off-the-allowed-domains | domain_not_allowed |

  @REPAIR-006
  Scenario: Without a model, a repairable failure ends the run as it does without repair
    Given no model is configured
    When I run "repair-act" against the fixture site
    Then the run ends "error" with stop reason "execute_error"
    And the repair state says no model is configured, and nothing else changed
