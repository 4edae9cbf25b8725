Feature: A failed run says why, and a dead browser is reported as one

  @EXEC-036
  Scenario: An act whose expect names several elements: the verdict names the check and its reason
    When I run "reasons/ambiguous-expect" on the fixture site
    Then the run ends "error" with stop reason "verification_failed"
    And the verdict summary says "act pick: expect element: ambiguous_target"
    And the verdict summary says how many elements matched
    And verdict.json holds the same summary

  @EXEC-036
  Scenario: The CLI prints the failed check and its reason
    When "verity run" runs "reasons/ambiguous-expect" on the fixture site
    Then its printed summary says "act pick: expect element: ambiguous_target"

  @EXEC-037
  Scenario: Chromium killed during a long wait ends the run browser_crashed naming the wait
    When I start "reasons/wait-long" on a browser of its own
    And the run is in its "wait" action
    And that browser is killed with SIGKILL
    Then the run ends "error" with stop reason "browser_crashed"
    And the verdict summary says "wait linger"

  @EXEC-037
  Scenario: Chromium killed while an act checks its effect ends the run browser_crashed naming the act
    When I start "reasons/act-long" on a browser of its own
    And the run is in its "verify" action
    And that browser is killed with SIGKILL
    Then the run ends "error" with stop reason "browser_crashed"
    And the verdict summary says "act press"

  @EXEC-037
  Scenario: Through the CLI, Chromium killed during a long wait ends the run browser_crashed naming the wait
    When "verity run" starts "reasons/wait-long" on the fixture site
    And its run is in its "wait" action
    And its Chromium is killed with SIGKILL
    Then it exits with the browser_crashed exit code and a final verdict naming "wait linger"
