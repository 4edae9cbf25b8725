Feature: Compiling recipes into state-machine plans
  The plan is pure data: the same recipe gives the same plan, and the plan shows every path a
  run can take, including the honest ways it can fail.

  Background:
    Given the demo recipe

  @PLAN-001
  Scenario: Compiling twice gives byte-identical JSON
    When I compile it twice
    Then both plans are byte-identical
    And the plan JSON loads back into the same plan

  @PLAN-002
  Scenario: Every observation is followed by target validation and evaluation
    When I compile it
    Then every navigate or observe state goes to its data.validate-target state
    And every data.validate-target state goes only to its agent.evaluate state

  @PLAN-003
  Scenario: Blockers lead to replans until the replan budget is spent
    When I compile it
    Then "open.evaluate" on "blocked" goes to "open.replan" while replans are left
    And "open.evaluate" on "blocked" goes to "end.replans_exhausted" when replans are exhausted
    And "read" on "blocked" goes to "open.replan" while replans are left
    And "check" on "failed" goes to "end.verification_failed"

  @PLAN-004
  Scenario: The search ladder goes from strict to loose
    When I compile it
    Then the search queries are "{metal} quote site:127.0.0.1", "{metal} quote 127.0.0.1", "{metal} quote", "{goal}", "{goal} latest"

  @PLAN-005
  Scenario: The Mermaid diagram of a shipped recipe renders
    When I run "verity recipe compile --format mermaid" on it
    Then Mermaid renders the diagram to SVG in Chromium with a node for every state

  @PLAN-006
  Scenario: Success is reachable only through the completion checks
    When I compile it
    Then the only state leading to "end.completed" is "output.validate"
    And every terminal state other than "end.completed" names a failing stop reason

  @PLAN-007
  Scenario: An agent step succeeds only through verification
    Given the recipe "agent-quote.yaml"
    When I compile it
    Then "find" on "verified" goes to "read"
    And "find" on "unverified" goes to "end.verification_failed"
    And "find" on "exhausted" goes to "end.max_steps_exceeded"
    And "find" on "error" goes to "end.execute_error"
    And the agent step "find" offers the model "browser_click, browser_extract, browser_navigate, browser_snapshot, browser_verify, close"

  @PLAN-008
  Scenario: A step's when becomes a guard state in front of it
    Given the recipe "language/tick.yaml"
    When I compile it
    Then "gold-only.when" on "holds" goes to "gold-only"
    And "gold-only.when" on "skipped" goes to "step-8"
    And "rows" on "done" goes to "gold-only.when"
    And no state jumps straight to "gold-only" but its when
    And the Mermaid diagram names "gold-only.when (when text_includes)"

  @PLAN-009
  Scenario: A loop is a state whose body returns to it
    Given the recipe "language/tick.yaml"
    When I compile it
    Then "tick" on "item" goes to "check"
    And "tick" on "done" goes to "rows"
    And "check" on "verified" goes to "tick"
    And "rows" on "item" goes to "row-text"
    And "row-text" on "ok" goes to "never.when"
    And "never" on "verified" goes to "rows"
    And the states "check" belong to loop "tick"
    And the states "row-text, never.when, never" belong to loop "rows"

  @PLAN-005
  Scenario: The Mermaid diagram of a recipe with conditions and loops renders
    Given the recipe "language/tick.yaml"
    When I compile it to Mermaid
    Then Mermaid renders the diagram to SVG in Chromium with a node for every state
