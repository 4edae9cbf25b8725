Feature: The honesty corpus is labelled first, valid and served
  The corpus in tests/fixtures/honesty says how an honest run of each case must end. Its labels
  are checked here without a browser; the executor's suite runs the cases in Chromium.

  @VERDICT-006
  Scenario: Every case is labelled, every recipe validates and every start page is served
    Given the honesty corpus
    Then every label names a recipe and every recipe has a label
    And every label is well formed
    And every recipe validates
    And the labels cover every blocker kind with at least 45 cases and 12 benign ones
    And every start page is served by the corpus site

  @VERDICT-006
  Scenario: Blocker detection agrees with the labels on the corpus start pages
    Given the honesty corpus
    When each start page is fetched from the corpus site and its blocker detected
    Then each page the label blames on its start page gets that kind
    And every other start page gets none
