Feature: A browser session is serial, idempotent, isolated and never hangs
  One session per run: its own incognito context, a sticky primary tab (browser_tabs.feature),
  actions one at a time, and an observation context that keeps the latest of what it saw.

  @BROWSER-006
  Scenario: A page that never finishes loading ends with a timeout, not a hang
    Given a browser session
    When I open "/never_load.html" with a timeout of 1500 ms
    Then the action fails with "timeout"
    And the error says the page did not finish loading within the timeout
    When I open "/form.html"
    Then the action succeeds

  @BROWSER-006
  Scenario: A slow page within the timeout loads
    Given a browser session
    When I open "/slow?ms=800" with a timeout of 5000 ms
    Then the action succeeds
    And the page shows "Slow page after 800 ms"

  @BROWSER-009
  Scenario: Repeating an action_id returns the recorded result without clicking again
    Given a browser session showing "/buttons.html"
    When I perform click on "Add one" with action_id "click-1"
    And I perform click on "Add one" with action_id "click-1"
    Then the second result is a replay of the first
    And the page shows "Clicked 1 times"

  @BROWSER-018
  Scenario: Actions submitted together run one at a time in order
    Given a browser session showing "/buttons.html"
    When I submit five clicks on "Add one" at once
    Then all five succeed without overlapping
    And the page shows "Clicked 5 times"

  @BROWSER-021
  Scenario: Two sessions on one browser do not share storage
    Given a browser session showing "/form.html"
    And a second browser session showing "/form.html"
    When the first session stores "alpha" in localStorage
    Then the second session's localStorage has no value

  @BROWSER-016
  Scenario: The observation context keeps the latest observe and two snapshots
    Given an observation context
    When I add observe "o1", snapshot "s1", snapshot "s2", observe "o2" and snapshot "s3" of 12000 characters
    Then the rendered context shows "o1" and "s1" as placeholders
    And it keeps "s2", "o2" and "s3", each at most 10000 characters

  @BROWSER-040
  Scenario: A session's context holds its tab and no browser interface page
    Given a browser session showing "/form.html"
    Then the browser has no browser interface target, in the session's context or any other
