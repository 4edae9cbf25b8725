Feature: Snapshot refs point at one element and nothing else
  A snapshot lists the interactive and visible elements of a tab with refs like "s3:e12".
  A ref is bound to its tab, its snapshot and the very DOM node it named.

  @BROWSER-001
  Scenario: A ref from an older snapshot is refused and no other element is clicked
    Given a browser session showing "/buttons.html"
    And I take a snapshot and remember the ref of button "Add one" as "old"
    And I take another snapshot
    When I click the remembered ref "old"
    Then the action fails with "stale_ref"
    And the page still shows "Clicked 0 times"

  @BROWSER-002
  Scenario: A ref to an element that was re-rendered is refused even though a look-alike replaced it
    Given a browser session showing "/rerender.html"
    And I take a snapshot and remember the ref of button "Pick Alpha" as "alpha"
    And I click the element with role "button" and name "Refresh list"
    When I click the remembered ref "alpha"
    Then the action fails with "stale_ref"
    And the page still shows "none"

  @BROWSER-002
  Scenario: A ref to an element that was removed is refused
    Given a browser session showing "/removed_target.html"
    And I take a snapshot and remember the ref of button "Doomed button" as "doomed"
    And I click the element with role "button" and name "Remove doomed"
    When I click the remembered ref "doomed"
    Then the action fails with "stale_ref"
    And the page still shows "none"

  @BROWSER-001
  Scenario: A ref from the latest snapshot clicks exactly its element
    Given a browser session showing "/buttons.html"
    And I take a snapshot and remember the ref of button "Add one" as "fresh"
    When I click the remembered ref "fresh"
    Then the action succeeds
    And the page shows "Clicked 1 times"

  @BROWSER-003
  Scenario: Elements inside same-origin and cross-origin iframes can be seen and clicked
    Given a browser session showing "/frames.html"
    When I take a snapshot
    Then the snapshot lists button "Inner button" in a frame from "127.0.0.1"
    And the snapshot lists link "Cross link" in a frame from "localhost"
    When I click the snapshot element link "Cross link"
    Then the action succeeds
    And a new snapshot lists link "Cross link clicked"

  @BROWSER-003
  Scenario: Elements inside an open shadow root can be seen and clicked
    Given a browser session showing "/shadow.html"
    When I take a snapshot
    Then the snapshot lists button "Shadow action" inside a shadow root
    When I click the snapshot element button "Shadow action"
    Then the page shows "Shadow button pressed"

  @BROWSER-004
  Scenario: A snapshot of a 10,000-element page respects its budget and says what it cut
    Given a browser session showing "/big?n=10000"
    When I take a snapshot with at most 50 elements
    Then the snapshot has 50 elements, all interactive
    And the snapshot says it cut elements beyond max_elements=50

  @BROWSER-004
  Scenario: Elements that appear after the previous snapshot are flagged as new
    Given a browser session showing "/spa.html"
    And I take a snapshot
    When I click the element with role "button" and name "Settings"
    And I wait until the page shows "Settings view"
    And I take a snapshot
    Then the snapshot flags textbox "Nickname" as new
    And the snapshot does not flag button "Home" as new
