Feature: Runs that make no progress stop early
  Repeating the same action on the same page, or bouncing between two pages, is not progress.
  The run stops with no_progress and shows the signatures that repeated.

  @GUARD-010
  Scenario: The same action on the same page three times stops the run
    Given a no-progress window of 3
    When the run clicks "Next" on page "p1" leading to page "p1" 3 times
    Then the run stops with no_progress pattern "repeat"
    And the evidence holds 3 identical "browser_click" signatures

  @GUARD-010
  Scenario: Two repeats inside a window of three do not stop the run
    Given a no-progress window of 3
    When the run clicks "Next" on page "p1" leading to page "p1" 2 times
    Then the run goes on

  @GUARD-011
  Scenario: Bouncing between two pages stops the run
    Given a no-progress window of 3
    When the run goes back and forth between pages "list" and "detail" 2 times
    Then the run stops with no_progress pattern "round_trip"
    And the evidence alternates between two signatures

  @GUARD-011
  Scenario: One round trip and real progress do not stop the run
    Given a no-progress window of 3
    When the run goes back and forth between pages "list" and "detail" 1 time
    And the run clicks through pages "detail, page2, page3, page4"
    Then the run goes on
