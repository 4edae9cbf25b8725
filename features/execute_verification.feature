Feature: A run is done only when its actions succeeded and were verified
  Observe -> Act -> Verify: an act counts only when its expected effect is seen; a verify step
  passes only when every condition passes; the output must match its schema; and runs that go
  in circles or too long are stopped.

  @EXEC-004
  Scenario: A missing text fails verification and the run is not completed
    When I run "verify-missing-text" against the quote site
    Then the run ends "error" with stop reason "verification_failed"
    And the verify step recorded "field_present" passed and "text_includes" failed as evidence
    And the run is not verified
    And the final verdict is the last event, exactly once

  @EXEC-005
  Scenario: A click that changes nothing is unverified and ends the run
    When I run "act-unverified" against the fixture site
    Then the run ends "error" with stop reason "verification_failed"
    And the step "press" ended "unverified" because the page did not change
    And the run is not verified

  @EXEC-005
  Scenario: An unverified click whose on_failure path leads on is recovered, and the run completes
    When I run "act-unverified-rerouted" against the fixture site
    Then the step "press" ended "unverified" because the page did not change
    And the step "press" is recorded as recovered on its way to "done"
    And the run ends "completed" with stop reason "completed"

  @EXEC-005
  Scenario: Clicks whose effects appear are verified and the run completes
    When I run "act-verified" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the step "save" ended "verified"
    And the step "continue" ended "verified"
    And the output field "order" is 1234

  @EXEC-006
  Scenario: Retrying a click that never changes the page stops with no_progress
    When I run "no-progress" against the fixture site
    Then the run ends "error" with stop reason "no_progress"
    And the step "press" ran 3 times before the stop

  @EXEC-007
  Scenario: A loop that keeps changing the page stops at max_steps
    When I run "max-steps" against the fixture site
    Then the run ends "error" with stop reason "max_steps_exceeded"
    And exactly 8 states were executed

  @EXEC-007
  Scenario: A run that outlives its time budget stops with timeout
    When I run "run-timeout" against the fixture site
    Then the run ends "error" with stop reason "timeout"
    And the final verdict is the last event, exactly once

  @EXEC-013
  Scenario: Output that breaks the schema ends the run with output_invalid
    When I run "output-invalid" against the quote site
    Then the run ends "error" with stop reason "output_invalid"
    And the structured output is marked invalid with errors for "price" and "currency"
