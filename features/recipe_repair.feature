Feature: A recipe says which failed steps an agent may repair, and the plan shows where
  `repair: {with: agent}` on the recipe or a step lets an agent repair a step that ends in
  execute_error, verification_failed or no_progress. It is checked where it is written, and the
  compiled plan routes exactly those failures to the step's repair state.

  @REPAIR-001
  Scenario Outline: A repair that cannot work is reported at its position
    Given the broken repair recipe "<file>"
    When I validate the repair recipe
    Then the repair problems are exactly those listed in its expect comments

    Examples:
      | file                 |
      | repair-keys.yaml     |
      | repair-unjudged.yaml |

  @REPAIR-001
  Scenario: A repaired step routes only the ADR's three failures to its repair
    When I compile a recipe whose steps have repairs
    Then the act "save" routes "error", "unverified" and "no_progress" to "save.repair" and "blocked" to the replan
    And the verify step "check" routes only "failed" to "check.repair", which fails over to its on_failure "retry"
    And the act "plain" without an expect has no repair state
    And the repair of "save" is judged by the act's expect and offered only the tools the recipe allows
