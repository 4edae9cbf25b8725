Feature: The URLs a recipe names are judged before the run

  @RECIPE-020
  Scenario: A non-web URL written in a recipe is a validation problem at its field
    Given a recipe whose search page is a file: URL, whose second navigate is a javascript: URL and whose start page is a data: URL
    When I validate it with the CLI
    Then the CLI exits with status 3
    And it reports "fallback.search_url" as scheme_not_allowed naming "file:"
    And it reports "plan[1].navigate" as scheme_not_allowed naming "javascript:"
    And it reports "target.start_url" as scheme_not_allowed naming "data:"

  @RECIPE-020
  Scenario: A URL whose scheme an input gives is judged when the run starts
    Given a recipe whose start page is "{site}/rows.html"
    When I run it with the CLI and the input site "file:///etc"
    Then the CLI exits with status 3
    And it reports "target.start_url" as scheme_not_allowed naming "file:"
    And it says nothing was run

  @RECIPE-020
  Scenario: URLs whose scheme a placeholder or a run value gives pass validation
    Given a recipe whose start page is "{site}/rows.html"
    When I validate it with the CLI
    Then the CLI exits with status 0
