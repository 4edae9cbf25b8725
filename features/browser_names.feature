Feature: Elements are named as the accessibility tree names them
  One accessible-name and role computation (accname 1.2 and HTML-AAM, as Chromium implements
  them) serves locators, strictness counts, snapshots and refs, so an element a snapshot shows as
  `button "Send message"` is the one {role: button, name: "Send message"} finds, and a locator
  Playwright refuses as ambiguous is refused here too.

  @BROWSER-028
  Scenario Outline: The accessible name follows accname 1.2
    Given a browser session showing "/names/<page>.html"
    When I resolve the locator {"role": "<role>", "name": "<name>", "exact": true}
    Then it finds the element marked "target" as <role> "<name>" among 1 match
    And the snapshot shows one <role> "<name>"

    Examples:
      | page              | role   | name                 |
      | labelledby        | button | Dismiss dialog       |
      | child_alt         | link   | Company logo Go home |
      | child_aria_label  | button | Delete item          |
      | slot              | button | Subscribe now        |
      | pseudo            | button | → Next page          |
      | display_none      | button | Save                 |
      | blocks            | link   | Read more            |
      | title_placeholder | textbox | Search the site     |
      | label_button      | button | Send message         |
      | long_name         | button | Accept the terms and conditions of the extended warranty for the selected item, including shipping, returns and the optional yearly inspection service |

  @BROWSER-029
  Scenario Outline: Roles follow WAI-ARIA and HTML-AAM
    Given a browser session showing "/names/<page>.html"
    When I resolve the locator {"role": "<role>", "name": "<name>", "exact": true}
    Then it finds the element marked "target" as <role> "<name>" among 1 match
    And the snapshot shows one <role> "<name>"

    Examples:
      | page         | role      | name   |
      | input_list   | combobox  | Fruit  |
      | th_row       | rowheader | Total  |
      | th_guess     | rowheader | Weight |
      | role_tokens  | button    | Go     |
      | presentation | button    | Pay    |
      | aria_hidden  | button    | Delete |

  @BROWSER-029
  Scenario: A button inside an aria-hidden subtree is neither counted nor clicked
    Given a browser session showing "/names/aria_hidden.html"
    When I click the locator {"role": "button", "name": "Delete", "exact": true}
    Then the page says it clicked "target"

  @BROWSER-026
  Scenario Outline: Names that make two elements alike make the locator ambiguous
    Given a browser session showing "/names/<page>.html"
    When I click the locator <locator>
    Then the action failed with "ambiguous_target" listing <count> candidates
    And the candidates are <candidates>
    And the page says nothing was clicked

    Examples:
      | page        | locator                                               | count | candidates                                                   |
      | logo_link   | {"role": "link", "name": "Home", "exact": true}       | 2     | link "Home", link "Home"                                     |
      | icon_button | {"role": "button", "name": "Home", "exact": true}     | 2     | button "Home", button "Home"                                 |
      | css_shadow  | {"css": "button.buy"}                                 | 4     | button "Buy", button "Buy one", button "Buy two", button "Buy three" |

  @BROWSER-030
  Scenario: A CSS locator finds an element inside an open shadow root, combinators crossing into it
    Given a browser session showing "/names/css_shadow.html"
    When I resolve the locator {"css": "button.gift"}
    Then it finds the element marked "target" as button "Gift" among 1 match
    When I resolve the locator {"css": "shop-shelf > button.gift:not(.buy)"}
    Then it finds the element marked "target" as button "Gift" among 1 match
    When I resolve the locator {"css": "body shop-shelf button + button.gift, #nowhere"}
    Then it finds the element marked "target" as button "Gift" among 1 match
    When I resolve the locator {"css": "button.buy ~ button[data-case='target']"}
    Then it finds the element marked "target" as button "Gift" among 1 match

  @BROWSER-031
  Scenario Outline: A button that cannot be pressed fails with why, and is not pressed
    Given a browser session showing "/names/unpressable.html"
    When I click the locator {"role": "button", "name": "<name>", "exact": true}
    Then the action failed with "not_interactable" saying "<why>"
    And the page says nothing was clicked

    Examples:
      | name      | why         |
      | Far away  | off screen  |
      | Ship it   | disabled    |
      | Pay later | disabled    |

  @BROWSER-031
  Scenario: The button beside them is pressed
    Given a browser session showing "/names/unpressable.html"
    When I click the locator {"role": "button", "name": "Fine", "exact": true}
    Then the page says it clicked "fine"

  @BROWSER-031
  Scenario: A run's clicks on buttons nobody could press fail with why, and press nothing
    When I run the recipe "names/unpressable" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the state "far" failed with "not_interactable" saying "off screen"
    And the state "ship" failed with "not_interactable" saying "disabled"
    And the state "pay" failed with "not_interactable" saying "disabled"
    And the state "check" ended "passed"
