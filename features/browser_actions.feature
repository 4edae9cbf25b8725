Feature: Browser actions do what they say on real pages
  Every action returns ok with data, or an error with a typed code. Targets can be a snapshot
  ref, a role and name, visible text, a CSS selector or an XPath.

  @BROWSER-011
  Scenario Outline: Navigation reports the main document's HTTP status
    Given a browser session
    When I open "<path>"
    Then the action succeeds
    And the reported status is <status>

    Examples:
      | path        | status |
      | /form.html  | 200    |
      | /missing    | 404    |
      | /forbidden  | 403    |

  @BROWSER-011
  Scenario: A refused connection fails with navigation_failed
    Given a browser session
    When I open a URL on a port nobody listens on
    Then the action fails with "navigation_failed"

  @BROWSER-037
  Scenario: A page that redefines the DOM for its own scripts cannot change what extract reads
    Given a browser session showing "/cloaked.html"
    When I extract every ".price" and the one ".price:first-child"
    Then the action succeeds
    And extract read "$2,000.00" and "$2,100.00" for every price, and "$2,000.00" for the first

  @BROWSER-036
  Scenario: A page that replaces its document while Verity reads it is reported as the page it moved to
    Given a browser session
    When I open "/moves_on.html"
    Then the action succeeds
    And the reported page is "/target.html" titled "Popup target"

  @BROWSER-036
  Scenario: Preparing a page that replaces its document while it is read prepares the page it moved to
    Given a browser session showing "/moves_on.html?reads=1"
    When I prepare the page
    Then the action succeeds
    And the prepared page is "/target.html" titled "Popup target", its screenshot and text from that page

  @BROWSER-012
  Scenario: A user fills in and submits a form with every kind of target
    Given a browser session showing "/form.html"
    When I type "Ada Lovelace" into the element with role "textbox" and name "Full name"
    And I type "ada@example.org" into the element with css "#email"
    And I select "Green cover" in the element with xpath "//select[@id='colour']"
    And I click the element with text "Gift wrap"
    And I click the element with role "button" and name "Place order"
    Then the page shows "Ordered: Ada Lovelace / ada@example.org / green / gift=yes"

  @BROWSER-012
  Scenario: Typing with submit presses Enter in the field
    Given a browser session showing "/form.html"
    When I type "Grace" into the element with css "#name" and submit
    Then the page shows "Ordered: Grace"

  @BROWSER-012
  Scenario: Pressing a key and scrolling
    Given a browser session showing "/buttons.html"
    When I press "Escape" in the element with role "textbox" and name "Key catcher"
    Then the page shows "Key Escape"
    When I scroll down by 1500 pixels
    Then the window is scrolled down by at least 1000 pixels
    When I click the element with text "Far button"
    Then the page shows "Far clicked"

  @BROWSER-012
  Scenario: A disabled button is refused and a missing element is reported
    Given a browser session showing "/buttons.html"
    When I click the element with css "#off"
    Then the action fails with "not_interactable"
    When I click the element with css "#nothing-here"
    Then the action fails with "not_found"

  @BROWSER-013
  Scenario: Waiting for a single-page-app route change and its text
    Given a browser session showing "/spa.html"
    When I click the element with role "button" and name "Settings"
    And I wait for the url to contain "/spa/settings"
    Then the action succeeds
    When I wait for the text "Settings view"
    Then the action succeeds

  @BROWSER-013
  Scenario: Waiting for text that never appears ends with a timeout
    Given a browser session showing "/form.html"
    When I wait for the text "This never appears" for at most 700 ms
    Then the action fails with "timeout"

  @BROWSER-014
  Scenario: Extracting fields by selector
    Given a browser session showing "/index.html"
    When I extract the heading text, the link targets and a missing field
    Then the extracted "heading" is "Fixture site"
    And the extracted "links" include "/form.html"
    And the extraction lists "price" as missing

  @BROWSER-015
  Scenario: Verifying the outcome of an act with checks and a fingerprint
    Given a browser session showing "/buttons.html"
    And I take the page fingerprint
    When I take the page fingerprint again
    Then the fingerprint did not change
    When I click the element with role "button" and name "Add one"
    And I take the page fingerprint again
    Then the fingerprint changed
    And verifying the text "Clicked 1 times" passes
    And verifying the text "Clicked 5 times" fails
    And verifying the url contains "/buttons.html" passes
    And verifying that the element with css "#off" is enabled fails
    And verifying that the element with css "#gone" exists fails

  @BROWSER-010
  Scenario: Preparing an article page gives a screenshot and its readable text
    Given a browser session showing "/article.html"
    When I prepare the page
    Then the action succeeds
    And the prepared page has a PNG screenshot artifact
    And the prepared text mentions "Old Tomas has worked these waters" and comes from "trafilatura"
    And the prepared text does not mention "Copyright Fixture Press"

  @BROWSER-010
  Scenario: Preparing a page where trafilatura finds no main content falls back to its visible text
    Given a browser session showing "/status.html"
    When I prepare the page
    Then the prepared text mentions "All systems normal" and comes from "inner_text"

  @BROWSER-019
  Scenario Outline: Blocked URLs are refused before loading
    Given a browser session that blocks URLs starting with "http://127.0.0.1:1/admin"
    When I open the raw URL "<url>"
    Then the action fails with "blocked_url"
    And the tab still shows "about:blank"

    Examples:
      | url                          |
      | file:///etc/passwd           |
      | chrome://settings            |
      | http://127.0.0.1:1/admin/x   |

  @BROWSER-020
  Scenario: The seed 003 catalog works by XPath
    Given a browser session showing "/form.html"
    When I scan the page for XPaths
    Then the scan lists an input with XPath "/html[1]/body[1]/form[1]/input[1]"
    When I perform "browser_type" with xpath "//input[@id='name']" and text "Lin"
    And I perform "browser_click" with xpath "//button[@type='submit']"
    Then the page shows "Ordered: Lin"
    When I perform "browser_get_html" without params
    Then the result holds an "html" artifact containing "Ordered: Lin"
    When I perform "browser_screenshot" without params
    Then the result holds a "screenshot" artifact

  @BROWSER-022
  Scenario: A click on a button under an overlay fails and says what covers it
    Given a browser session showing "/buttons.html"
    When I click the element with css "#covered"
    Then the action fails with "not_interactable"
    And the error says it is covered by "div#overlay"
    And the page still shows "Clicked 0 times"

  @BROWSER-023
  Scenario: Extracting fields through any kind of target
    Given a browser session showing "/form.html"
    And I take a snapshot and remember the ref of button "Place order" as "order"
    When I extract fields by ref "order", by role "textbox" and name "Note to seller" with attribute "aria-label", by text "Order a book", by XPath "//select/option[2]" and a missing one by role "button" and name "Cancel"
    Then the extracted "by_ref" is "Place order"
    And the extracted "by_role" is "Note to seller"
    And the extracted "by_text" is "Order a book"
    And the extracted "by_xpath" is "Green cover"
    And the extraction lists "missing" as missing

  @BROWSER-023
  Scenario: An extract field whose selector the browser cannot parse fails the extraction and names it
    Given a browser session showing "/form.html"
    When I extract the field "broken" with the selector "h1[["
    Then the action fails with "invalid_params"
    And the error names the selector "h1[["
    When I extract every match of the selector "h1[[" as the field "broken"
    Then the action fails with "invalid_params"
    And the error names the selector "h1[["

  @BROWSER-023
  Scenario: Extracting through a ref from an older snapshot fails with stale_ref
    Given a browser session showing "/form.html"
    And I take a snapshot and remember the ref of button "Place order" as "order"
    And I take another snapshot
    When I extract the field "label" by ref "order"
    Then the action fails with "stale_ref"

  @BROWSER-024
  Scenario: Verifying the page title
    Given a browser session showing "/form.html"
    When I select "Blue cover" in the element with css "#colour"
    Then verifying the title includes "order FORM (blue)" passes and observes "Order form (blue)"
    And verifying the title includes "Invoice" fails and observes "Order form (blue)"
