Feature: Recipes that use what they read: values, conditions, loops, page scripts, waits, search
  A value read from the page feeds later steps and the output; a step runs only when its `when`
  holds; a loop runs its steps per item, each iteration recorded on its own; a page script runs
  where the recipe says and no longer than it may; every wait kind is met or times out; and a
  fallback search waits for results a script draws before it follows one.

  @EXEC-028
  Scenario: Values read from the page drive later steps and make the output
    When I run "language/tick" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the output is {"names": ["apple", "cherry"], "ticked": 2, "rows": 2, "isolated_sees": "undefined", "main_sees": "string"}
    And the output value "names" came from state "parse" on the page "/language.html"

  @EXEC-029
  Scenario: A false when skips its step and says why
    When I run "language/tick" against the fixture site
    Then the state "gold-only.when" was skipped because "{text_includes: gold} does not hold"
    And the state "gold-only" never ran
    And the states "never.when[0], never.when[1]" were skipped and "never" never ran

  @EXEC-030
  Scenario: Each loop iteration is its own set of states
    When I run "language/tick" against the fixture site
    Then the executions show "check[0], check[1]" for the loop "tick"
    And the executions show "row-text[0], never.when[0], row-text[1], never.when[1]" for the loop "rows"
    And the loop "rows" says 3 matched and 2 ran

  @EXEC-030
  Scenario: guards.max_steps bounds a loop's iterations
    When I run "language/loop-budget" against the fixture site
    Then the run ends "error" with stop reason "max_steps_exceeded"
    And the executions show "row-text[0], row-text[1]" for the loop "rows"

  @EXEC-031
  Scenario: A page script's result is capped and a runaway script is stopped
    When I run "language/evaluate-limits" against the fixture site
    Then the state "too-big" failed with "result_too_large"
    And the state "spin" failed with "timeout"
    And the states "unreachable-after-big, unreachable-after-spin" never ran
    And the run ends "completed" with stop reason "completed"
    And the close summary says "the page answered: Language fixture"

  @EXEC-031
  Scenario: A page script waits for a person's approval like any tool
    When I start "language/evaluate-approval" against the fixture site
    Then the run waits for a confirmation of "browser_evaluate"
    When I deny the script because "no scripts today"
    Then the run ends "error" with stop reason "approval_denied"
    And the state "script" never ran its script

  @EXEC-032
  Scenario: Every kind of wait is met: load, time, text, selector, URL
    When I run "language/waits" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the waits "loaded, pause, ready, late-box, moved" were each met

  @EXEC-032
  Scenario: A URL wait the page never meets ends the run with timeout
    When I run "language/wait-url-fails" against the fixture site
    Then the run ends "error" with stop reason "timeout"
    And the state "never" ended "timeout"

  @EXEC-033
  Scenario: A dead docs link is recovered through the fallback search alone
    Given the Sphinx-like docs site on loopback
    When I run "recipes/python-docs-dead-link" against the docs site
    Then the run ends "completed" with stop reason "completed"
    And the output title starts with "json"
    And the replan followed "library/json.html" after the search results were drawn
    And the docs site was never asked for "genindex.html" or "py-modindex.html"

  @EXEC-035
  Scenario: Clicks land where a person's would
    When I run "language/clicks" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the state "partly" clicked although an ad covers its centre
    And the state "under" failed with "not_interactable"
    And the state "never" never ran
    And the state "inside" ended "verified"

  @EXEC-033
  Scenario: The fallback search can wait for a text the results page shows
    Given the Sphinx-like docs site on loopback
    When I run "language/docs-wait-text" against the docs site
    Then the run ends "completed" with stop reason "completed"
    And the replan waited for "text_includes" before reading the result links
    And the replan followed "library/json.html" after the search results were drawn
