Feature: A session tracks its tabs and keeps one primary tab
  Every tab a session's page opens (a target=_blank link, window.open) is tracked and reported
  with its opener, while the primary tab stays the default target; switch_tab and close_tab move
  the primary tab on purpose, and new_tab opens a blank tab in the session's own context.

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
