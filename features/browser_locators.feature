Feature: Locators find exactly one element, in Playwright's vocabulary
  An act names its element by role and name, text, label, placeholder, alt, title, test id, CSS
  or XPath, narrowed by has_text, within or frame. Several visible matches are an error that
  lists them, unless nth or first says which; hidden elements never count.

  @BROWSER-025
  Scenario Outline: Each kind of locator finds its one element
    Given a browser session showing "/locators.html"
    When I resolve the locator <locator>
    Then it finds one <tag> among 1 match

    Examples:
      | locator                                                         | tag    |
      | {"label": "Email address", "exact": true}                       | input  |
      | {"label": "Nickname"}                                           | input  |
      | {"placeholder": "you@example.com"}                              | input  |
      | {"alt": "gold bar"}                                             | img    |
      | {"title": "Troy ounce"}                                         | span   |
      | {"test_id": "save-signup"}                                      | button |
      | {"role": "button", "name": "Save", "within": {"role": "region", "name": "Newsletter"}} | button |
      | {"role": "button", "name": "Buy", "has_text": "Buy", "within": {"css": ".card", "has_text": "10 oz"}} | button |
      | {"xpath": "//form//button"}                                     | button |
      | {"role": "button", "name": "Inner button", "frame": "#inner"}   | button |

  @BROWSER-023
  Scenario Outline: Extract finds and reads in one evaluation the element each locator resolves
    Given a browser session showing "/locators.html"
    When I resolve the locator <locator>
    And I extract the field "value" through the locator <locator>, with the page fingerprint
    Then the extract found the element the locator resolved and read what it holds
    And the extract carries the page fingerprint of the document it read

    Examples:
      | locator                                                         |
      | {"label": "Email address", "exact": true}                       |
      | {"placeholder": "you@example.com"}                              |
      | {"title": "Troy ounce"}                                         |
      | {"test_id": "save-signup"}                                      |
      | {"role": "button", "name": "Save", "within": {"role": "region", "name": "Newsletter"}} |
      | {"role": "button", "name": "Buy", "has_text": "Buy", "within": {"css": ".card", "has_text": "10 oz"}} |
      | {"role": "button", "name": "Buy", "nth": -1}                    |
      | {"xpath": "//form//button"}                                     |
      | {"role": "button", "name": "Inner button", "frame": "#inner"}   |

  @BROWSER-023
  Scenario: An extract field that names several elements is ambiguous, and one naming only hidden ones is missing
    Given a browser session showing "/locators.html"
    When I extract the fields "buy" by {"role": "button", "name": "Buy"} and "hidden" by {"role": "button", "name": "Hidden only"}
    Then the extract lists "buy" as ambiguous with 2 candidates
    And the extract lists "hidden" as missing

  @BROWSER-025
  Scenario: An exact name is case-sensitive
    Given a browser session showing "/locators.html"
    When I click the locator {"role": "button", "name": "Yes", "exact": true}
    Then the click chose button "Yes" among 1 match
    And the page says "upper Yes"

  @BROWSER-026
  Scenario: Several visible matches fail with ambiguous_target and list them
    Given a browser session showing "/locators.html"
    When I click the locator {"role": "button", "name": "Buy"}
    Then the action failed with "ambiguous_target" listing 2 candidates
    And the page says nothing was clicked

  @BROWSER-026
  Scenario: nth and first pick one of several matches, and hidden elements do not count
    Given a browser session showing "/locators.html"
    When I click the locator {"role": "button", "name": "Buy", "nth": -1}
    Then the click chose button "Buy" among 2 matches
    And the page says "bought 10 oz"
    When I click the locator {"role": "button", "name": "Save", "first": true}
    Then the page says "signup saved"
    When I resolve the locator {"role": "button", "name": "Hidden only"}
    Then it finds nothing

  @BROWSER-027
  Scenario: The own-effect check sees the act's change and not a clock elsewhere
    Given a browser session showing "/effects.html"
    When I click the locator {"css": "#inert"}
    Then the own-effect check fails
    When I click the locator {"role": "button", "name": "Show more"}
    Then the own-effect check passes naming "aria-expanded"

  @BROWSER-027
  Scenario: Typing with submit waits for the navigation it starts
    Given a browser session showing "/effects.html"
    When I type "gold" into the locator {"label": "Search"} and submit
    Then the action succeeded and landed on "/effects.html?q=gold"

  @BROWSER-060
  Scenario Outline: Where a page can be read two ways, a locator reads it as Playwright does
    Given a browser session showing "/locator-differences.html"
    When I resolve the locator <locator>
    Then it finds one <tag> among 1 match

    Examples:
      | locator                                      | tag     |
      | {"label": "Shipping address"}                | input   |
      | {"role": "button", "name": "Checkout"}       | button  |
      | {"text": "Delivery times"}                   | p       |
      | {"text": "More details"}                     | summary |

  @BROWSER-060
  Scenario Outline: A label locator reads each label's text, hidden parts and hidden labels too, as Playwright does
    Given a browser session showing "/names/label_kinds.html"
    When I resolve the locator <locator>
    Then it finds one <tag> among 1 match

    Examples:
      | locator                                                | tag   |
      | {"label": "Card number", "exact": true}                | input |
      | {"label": "Phone", "exact": true}                      | input |
      | {"label": "Nickname (optional)", "exact": true}        | input |
      | {"label": "Fax line", "exact": true}                   | input |
      | {"role": "textbox", "name": "Fax line", "exact": true} | input |
      | {"label": "Pay with a card", "exact": true}            | input |
      | {"label": "Code", "exact": true}                       | input |
      | {"label": "Promo code", "exact": true}                 | label |

  @BROWSER-060
  Scenario Outline: A text locator reads an element's text as Playwright does
    Given a browser session showing "/names/text_kinds.html"
    When I resolve the locator <locator>
    Then it finds one <tag> among 1 match

    Examples:
      | locator                                  | tag |
      | {"text": "Counted words", "exact": true} | div |
      | {"text": "Styled words", "exact": true}  | div |
      | {"text": "Total: 42 EUR", "exact": true} | p   |

  @BROWSER-060
  Scenario Outline: A label locator does not read a label as its accessible name
    Given a browser session showing "/names/label_kinds.html"
    When I resolve the locator <locator>
    Then it finds nothing

    Examples:
      | locator                                   |
      | {"label": "Card", "exact": true}          |
      | {"label": "Phone *", "exact": true}       |
      | {"label": "Nickname", "exact": true}      |
      | {"label": "Pay with card", "exact": true} |

  @BROWSER-060
  Scenario Outline: A role locator reads roles and names as Playwright does
    Given a browser session showing "/names/roles_more.html"
    When I resolve the locator <locator>
    Then it finds one <tag> among 1 match

    Examples:
      | locator                                                            | tag    |
      | {"role": "button", "name": "Delete report.pdf", "exact": true}     | button |
      | {"role": "complementary", "has_text": "Side notes"}                | aside  |
      | {"role": "complementary", "has_text": "Menu aside"}                | aside  |

  @BROWSER-060
  Scenario Outline: A name from content spaces what is not an inline box, as Playwright does
    Given a browser session showing "/names/content_names.html"
    When I resolve the locator <locator>
    Then it finds one button among 1 match

    Examples:
      | locator                                                    |
      | {"role": "button", "name": "Line break", "exact": true}    |
      | {"role": "button", "name": "Cart Checkout", "exact": true} |
      | {"role": "button", "name": "Contents box", "exact": true}  |
      | {"role": "button", "name": "Quietwords", "exact": true}    |

  @BROWSER-060
  Scenario Outline: Attributes are compared as written, and a role ARIA gives no name is found by none
    Given a browser session showing "/names/attr_kinds.html"
    When I resolve the locator <locator>
    Then <found>

    Examples:
      | locator                                                             | found                         |
      | {"placeholder": "  Spaced   hint  ", "exact": true}                 | it finds one input among 1 match |
      | {"placeholder": "Spaced hint", "exact": true}                       | it finds nothing              |
      | {"role": "paragraph", "name": "Paragraph title", "exact": true}     | it finds nothing              |
      | {"title": "Paragraph title", "exact": true}                         | it finds one p among 1 match  |

  @BROWSER-060
  Scenario Outline: has_text reads an element's text as Playwright's hasText does
    Given a browser session showing "/names/text_more.html"
    When I resolve the locator <locator>
    Then <found>

    Examples:
      | locator                                           | found                              |
      | {"css": "x-plan", "has_text": "Plan C"}           | it finds one x-plan among 1 match  |
      | {"css": "section.card", "has_text": "Plan Z"}     | it finds nothing                   |

  @BROWSER-060
  Scenario Outline: A layout table's rows and cells are presentational with it
    Given a browser session showing "/names/roles_inputs.html"
    When I resolve the locator <locator>
    Then it finds nothing

    Examples:
      | locator                                                      |
      | {"role": "cell", "name": "Layout cell", "exact": true}       |
      | {"role": "row"}                                              |

  @BROWSER-060
  Scenario: Text a shadow root says at its top level is found on no element, as in Playwright
    Given a browser session showing "/names/text_kinds.html"
    When I resolve the locator {"text": "Shadow note text", "exact": true}
    Then it finds nothing

  @BROWSER-060
  Scenario Outline: What Playwright does not find, a locator does not find either
    Given a browser session showing "/locator-differences.html"
    When I resolve the locator <locator>
    Then it finds nothing

    Examples:
      | locator                                      |
      | {"label": "Billing address"}                 |
      | {"role": "button", "name": "More details"}   |

  @BROWSER-070
  Scenario: A press that lands on another element, because the page moved under the pointer, fails
    Given a browser session showing "/slides-under-pointer.html"
    When I click the locator {"role": "button", "name": "Keep"}
    Then the click failed as missed, naming "span#remove" as what was pressed

  @BROWSER-071
  Scenario: A button that slides away once, when the pointer first reaches it, is aimed at again and pressed once
    Given a browser session showing "/slides-away.html"
    When I click the locator {"role": "button", "name": "Settle"}
    Then the click passed and the page saw "settle pressed"

  @BROWSER-071
  Scenario: A button that jumps away every time the pointer reaches it fails as moved and is never pressed
    Given a browser session showing "/slides-away.html"
    When I click the locator {"role": "button", "name": "Restless"}
    Then the click failed as moved and the page saw "nothing pressed"
