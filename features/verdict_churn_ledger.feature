Feature: What a page changes by itself, however slowly, is never an act's effect
  Every document keeps a churn ledger from its start: an element that changed by itself again and
  again in the seconds before an act (a clock ticking every second or two) is the page's own churn,
  even when its tick lands in the act's settle. A change the page made once, or one an earlier act
  made, is not churn: a click that writes there still counts.

  @VERDICT-017
  Scenario: An inert click beside clocks slower than the baseline fails on every run
    Given the churn page "two-clocks.html"
    When 3 runs each wait for "both clocks ticked twice" and click {"css": "#inert"} with no expectation
    Then every run ends "verification_failed"
    And every run's evidence says "span#fast (changed by itself"
    And every run's evidence says "span#slow (changed by itself"

  @VERDICT-017
  Scenario: A click that writes into an element the page rendered once completes
    Given the churn page "loading-once.html"
    When 1 runs each wait for "loading…" and click {"css": "#save"} with no expectation
    Then every run ends "completed"
    And every run's evidence says "saved alice"

  @VERDICT-017
  Scenario: Clicks that write into the element earlier clicks wrote all complete
    Given the churn page "counter.html"
    When a run waits for "count 0" and clicks {"css": "#add"} 3 times with no expectation
    Then every run ends "completed"
    And every run's evidence says "count 3"

  @VERDICT-018
  Scenario: A click that only re-renders what was shown changes nothing
    Given the churn page "rerender.html"
    When 1 runs each wait for "Status: ready" and click {"css": "#rerender"} with no expectation
    Then every run ends "verification_failed"

  @VERDICT-018
  Scenario: A click that re-renders the same way with new text completes
    Given the churn page "rerender.html"
    When 1 runs each wait for "Status: ready" and click {"css": "#update"} with no expectation
    Then every run ends "completed"
    And every run's evidence says "Status: updated"

  @VERDICT-026
  Scenario: What the run's own steps and the first rendering changed is not churn
    Given the churn page "own-steps.html"
    When a run starts the page's episode by a page script, selects all with an expectation, then clicks {"css": "#bold"} with no expectation
    Then every run ends "completed"
    And every run's evidence says "hello world"
