Feature: Form values: what a field holds, a multiple select's choices, an option's state and expectations that must not hold
  A recipe reads an input, a textarea or a select as a person sees it (exactly, when asked),
  adds to and takes from a multiple select's choices, checks that an option is chosen, and can
  expect that something no longer holds after an act.

  @EXEC-056
  Scenario: Extract reads typed values, a textarea exactly, a select's and a multiple select's choices
    When I run "forms/values" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the close summary says "read [two  words ] m cheese, olives"
    And the extracted fields are "name=Ada, name_value=Ada, name_attr=Ada, note=two words, size=m, toppings=cheese, olives"
    And the extracted field "note_exact" is exactly "two  words "
    And the extracted field "heading" was missing

  @EXEC-057 @EXEC-058 @EXEC-059
  Scenario: A multiple select gains and loses options, each act verified by the option's state
    When I run "forms/multiple" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the close summary says "chosen ham, olives, then basil alone"
    And the acts "add-ham, drop-cheese, only-basil" were each verified
    And the select "add-ham" left "cheese, ham, olives" chosen and "drop-cheese" left "ham, olives" chosen

  @EXEC-059
  Scenario: An act whose not-expectation holds is unverified and the run is not completed
    When I run "forms/not-holds" against the fixture site
    Then the run ends "error" with stop reason "verification_failed"
    And the act "add-cheese" failed the check "{not: {element: {css: '#toppings option[value=cheese]', state: selected}}}"

  @EXEC-057
  Scenario: Adding to a single-choice select fails the act
    When I run "forms/single-add" against the fixture site
    Then the state "add-size" failed with "not_interactable"

  @EXEC-059
  Scenario: Readings and select modes that contradict themselves are load errors
    Given the recipe "forms/bad-fields"
    When I validate it
    Then the problems are "plan[0].extract.fields.both: invalid_value, plan[1].act: invalid_value, plan[2].act: invalid_value"
