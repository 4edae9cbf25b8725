Feature: A recipe loader that never crashes
  Whatever text arrives as a recipe, validation answers with problems a person can act on, each
  at its line, column and field path; and a recipe it accepts really runs: it compiles, its plan
  is JSON, and every templated field fills.

  @RECIPE-013 @RECIPE-014
  Scenario: Mutated recipes give problems or plans, never internal errors
    Given the recipes the suite ships
    When 500 mutations of them are loaded, validated and, when accepted, compiled and filled
    Then nothing raised but recipe problems, each with a line, a column and a field path
    And some mutations were accepted and some rejected
