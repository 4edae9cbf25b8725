Feature: Served runs say why they failed, and a dead browser is reported as one
  The same judges as the CLI: a served run's verdict and GetRun name the failed check and its
  reason, a Chromium killed during a step ends the run browser_crashed naming the step, and a
  recipe naming a non-web URL is refused by StartRun at the field.

  Background:
    Given the fixture site and the article recipes
    And the reasons recipes are in the server's recipes directory

  @EXEC-036
  Scenario: GetRun names the failed check and its reason
    Given a verity serve process
    When a client runs "reasons-ambiguous-expect" with Run
    Then the final verdict and GetRun's summary say "act pick: expect element: ambiguous_target"

  @EXEC-037
  Scenario: Chromium killed during a served run's long wait ends it browser_crashed naming the wait
    Given a verity serve process
    When a client starts "reasons-wait-long" and waits for its "wait" action
    And the serving Chromium is killed with SIGKILL
    Then the run ends error with stop reason browser_crashed
    And the final verdict and GetRun's summary say "wait linger"

  @RECIPE-020
  Scenario: StartRun refuses a recipe whose search page is a file: URL, at the field
    Given a verity serve process
    When a client starts a recipe whose fallback.search_url is "file:///etc/passwd?q={query}"
    Then StartRun fails with INVALID_ARGUMENT at "fallback.search_url" naming scheme_not_allowed
    And the server has no run

  @RECIPE-020
  Scenario: StartRun refuses inputs that make the start page a file: URL, at the field
    Given a verity serve process
    When a client starts "reasons-wait-long" with the input site "file:///etc"
    Then StartRun fails with INVALID_ARGUMENT at "target.start_url" naming scheme_not_allowed
    And the server has no run
