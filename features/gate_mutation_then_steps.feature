Feature: The mutation check names the Then steps that caught no planted bug
  A Then step can check so little that no small bug planted in the code its scenario runs makes it
  fail. The mutation check runs mutmut and joins its coverage and verdicts with the Then steps
  pytest-bdd binds, so such a step is named by its feature line and its step definition.

  @GATE-030
  Scenario: A Then step whose scenario killed none of the mutants it covers is named
    Given a sample shop project whose currency scenario only checks that the currency is text
    When the mutation check runs on the sample shop project
    Then every mutant of the currency function survived
    And the Then step "Then the currency is some text" is named at its feature line with its step definition and the currency mutants
    And the Then step "Then the price is 180" is not named
    And 2 Then steps were considered
