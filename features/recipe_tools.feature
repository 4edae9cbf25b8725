Feature: Every tool a recipe's steps need is checked before the run

  @RECIPE-018
  Scenario: Validation names each step whose tool tools.allow leaves out
    Given the recipe "allow-list-blocks" whose tools.allow names only open_url
    When I validate it with the CLI
    Then the CLI exits with status 3
    And it reports "plan[1].extract" at 16:7 with "add browser_extract to tools.allow"
    And it reports "plan[2].close" at 18:5 with "add close to tools.allow"

  @RECIPE-018
  Scenario: A run of such a recipe is refused before any browser starts
    Given the recipe "allow-list-blocks" whose tools.allow names only open_url
    When I run it with the CLI
    Then the CLI exits with status 3
    And it reports "plan[1].extract" at 16:7 with "add browser_extract to tools.allow"
    And it says nothing was run

  @RECIPE-018
  Scenario: A replan needs the search tool only when the recipe can search
    Given a recipe whose tools.allow names open_url and close, with a navigate step checked against the target
    When the recipe names fallback.search_url
    Then validation reports "plan[0].navigate" needing "browser_search"
    And without fallback.search_url it is valid

  @RECIPE-019
  Scenario: The schema and the docs name each step's tool
    When I generate the recipe JSON Schema
    Then each step kind's description names the tool the step->tool table gives it
    And the docs' step table gives each step kind the same tool
