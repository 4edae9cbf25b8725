Feature: A browser session is serial, idempotent, isolated and never hangs
  One session per run: its own incognito context, a sticky primary tab, actions one at a time.

  @BROWSER-005
  Scenario: A link with target=_blank opens a tracked tab and the primary tab stays the default
    Given a browser session showing "/popups.html"
    When I click the element with role "link" and name "Open in new tab"
    Then the result reports a new tab opened by the primary tab
    And a tab event "opened" was emitted for it
    And the new tab shows "Popup target"
    And the page still shows "Popups"

  @BROWSER-005
  Scenario: A window.open popup is tracked too
    Given a browser session showing "/popups.html"
    When I click the element with role "button" and name "Open popup window"
    Then the result reports a new tab opened by the primary tab
    And the new tab's URL contains "via=window-open"

  @BROWSER-041
  Scenario: switch_tab moves the primary tab on purpose; close_tab gives it back to the tab's opener
    Given a browser session showing "/popups.html"
    When I click the element with role "link" and name "Open in new tab"
    Then the result reports a new tab opened by the primary tab
    When I make the new tab the primary tab
    Then an action that names no tab acts in the new tab
    When I close the new tab
    Then the first tab is the primary tab again and an action that names no tab acts in it
    And the tab events were "opened", "primary", "primary", "closed", each naming the primary tab after it
    And closing the session's only open tab fails with "invalid_params"

  @BROWSER-041
  Scenario: new_tab opens a blank tab in the session's own context, where the session's actions reach it
    Given a browser session showing "/popups.html"
    When I open a new tab
    Then a tab event "opened" was emitted for it with no opener
    And opening "/target.html" in the new tab shows "Popup target" there and leaves the primary tab on "Popups"
    And the tab event "navigated" names the new tab at "/target.html"

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

  @BROWSER-007
  Scenario: A killed browser makes the next action fail with browser_crashed
    Given a separate browser with a session showing "/form.html"
    When the Chromium process is killed
    And I take a snapshot in that session
    Then the action fails with "browser_crashed"

  @BROWSER-008
  Scenario: Attaching to a Chromium that is already running
    Given a Chromium started with a remote debugging port on loopback
    When I connect to its DevTools endpoint and open "/form.html"
    Then the action succeeds
    And the connected session's snapshot lists button "Place order"
    And after disconnecting, that Chromium is still running

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

  @BROWSER-017
  Scenario: Launching without any Chromium says how to install one
    Given no Chromium on PATH and no VERITY_CHROME
    When I look for Chromium
    Then the launch error is "chromium_not_found" and mentions "apt-get install chromium" and "VERITY_CHROME"

  @BROWSER-072
  Scenario: A headless launch finds the headless shell through its launcher script, a headful one chromium, and without a shell chromium
    Given a PATH holding chromium and a chromium-headless-shell script that starts its binary without exec
    When I look for Chromium headless and headful
    Then the headless one is the script's binary and the headful one is chromium
    And without the shell on PATH the headless one is chromium too

  @BROWSER-040
  Scenario: A session's context holds its tab and no browser interface page
    Given a browser session showing "/form.html"
    Then the browser has no browser interface target, in the session's context or any other
