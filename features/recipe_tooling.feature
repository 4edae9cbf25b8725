Feature: Recipe tooling for authors and CI

  @RECIPE-008
  Scenario: A recipe's tool registry directory is merged with the built-in tools
    Given a recipe whose registry directory holds a JSON and a YAML descriptor
    When I validate it
    Then it is valid
    And the registry offers the built-in tools and both added tools with their scopes

  @RECIPE-008
  Scenario: A malformed tool descriptor is reported at its position
    Given a recipe whose registry directory holds a descriptor with an unknown scope
    When I validate it
    Then a problem names the descriptor file with line and column

  @RECIPE-009
  Scenario: The published JSON Schema matches the recipe model
    When I generate the recipe JSON Schema
    Then it equals recipes/recipe.schema.json
    And every shipped recipe satisfies it

  @RECIPE-015
  Scenario: Every property of the recipe language is described for editors
    When I generate the recipe JSON Schema
    Then every property in it has a description

  @RECIPE-010
  Scenario: verity recipe validate reports in JSON and sets its exit code
    When I run "verity recipe validate --json" on a valid and a broken recipe
    Then the exit code is 3
    And the JSON report marks the valid recipe valid and lists the broken recipe's problems with line and column

  @RECIPE-012
  Scenario: Run inputs are checked against the declared inputs
    Given the demo recipe
    When I resolve the inputs "metal=silver,sitee=x"
    Then the input problems are "inputs.search_site missing_input, inputs.site missing_input, inputs.sitee unknown_input"
