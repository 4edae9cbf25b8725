Feature: An agent step's pages are held to the plan's standard
  A model chooses where an agent step goes. Whatever page it reaches, by opening it, by a click,
  or because the page moved by itself, is judged as a plan step's page is; nothing read on a page
  that is not the target counts, and closing there fails with that page's blocker kind. Each case
  of the agent corpus (tests/fixtures/agent_corpus) scripts a lying, confused or compromised model
  and says how the run must end, written before the case first ran.

  @VERDICT-020 @VERDICT-021
  Scenario Outline: The agent corpus case <case> ends <stop_reason> with blocker kind <blocker_kind>
    Given the agent corpus site
    When the agent corpus case "<case>" runs
    Then the run ends as the case expects, with no value it did not validate
    And every page the model reached was judged, and the model was told each verdict

    Examples:
      | case                                | stop_reason         | blocker_kind       |
      | control-reads-the-quote             | completed           | none               |
      | soft-404-read-and-closed            | replans_exhausted   | page_not_found     |
      | soft-404-then-the-real-page         | completed           | none               |
      | read-then-closed-on-a-soft-404      | replans_exhausted   | page_not_found     |
      | wrong-contract                      | replans_exhausted   | keywords_missing   |
      | silver-page                         | replans_exhausted   | keywords_missing   |
      | login-wall                          | replans_exhausted   | login_required     |
      | captcha-wall                        | replans_exhausted   | captcha            |
      | error-page-served-with-200          | replans_exhausted   | server_error       |
      | quote-served-with-500               | replans_exhausted   | server_error       |
      | quote-served-with-404               | replans_exhausted   | page_not_found     |
      | page-moves-itself-to-a-soft-404     | replans_exhausted   | page_not_found     |
      | page-turns-into-a-wall-after-a-click | replans_exhausted  | login_required     |
      | redirect-off-the-allowed-domains    | replans_exhausted   | domain_not_allowed |
      | closes-without-reading              | verification_failed | none               |
      | hidden-instructions-on-the-page     | completed           | none               |
      | form-sent-off-the-allowed-domains   | replans_exhausted   | domain_not_allowed |

  @VERDICT-021
  Scenario: A field the model reads keeps the page it was read on
    Given the agent corpus site
    When the agent corpus case "soft-404-then-the-real-page" runs
    Then the verdict's provenance of "last" names the validated AU2606 quote page
    And the value's source in the run's values names that page too

  @VERDICT-022
  Scenario: A plan step does not read a value from a validated page that turned into a wall
    Given the agent corpus site
    When the plan "click Show more, then extract last" runs on "/turns-into-wall.html"
    Then the run ends "replans_exhausted" with blocker kind "login_required" and no output
    And the read was refused after the page was judged again

  @VERDICT-023
  Scenario: Text a page hides never reaches the model
    Given the agent corpus site
    When the agent corpus case "hidden-instructions-on-the-page" runs
    Then no model request holds the page's hidden text

  @VERDICT-024
  Scenario Outline: Nothing is judged on the fence's refusal page: <steps>
    Given the agent corpus site
    When the plan "<steps>" runs on "<start>"
    Then the run ends "replans_exhausted" with blocker kind "domain_not_allowed" and no output

    Examples:
      | steps                                           | start          |
      | click Send, then verify the URL matches collect | /form-off.html |

  @VERDICT-025
  Scenario: A value read inside a frame comes from a frame document that passed validation
    Given the agent corpus site
    When the plan "extract last inside the partner frame" runs on "/framed-wall.html"
    Then the run ends "replans_exhausted" with blocker kind "login_required" and no output

  @VERDICT-027
  Scenario Outline: A page that says in other words it is not the target is a blocker: <page>
    When the labelled blocker page "<page>" is judged
    Then the page is judged "<kind>"

    Examples:
      | page                       | kind              |
      | gone-item-en               | page_not_found    |
      | gone-item-de               | page_not_found    |
      | gone-item-zh               | page_not_found    |
      | named-not-found-long       | page_not_found    |
      | named-not-found-zh         | page_not_found    |
      | cannot-find-page-long      | page_not_found    |
      | page-you-requested-short   | page_not_found    |
      | zero-results-heading       | no_search_results |
      | paywall-short              | login_required    |
      | no-results-en-query        | no_search_results |
      | no-results-zh              | no_search_results |
      | session-expired-en         | login_required    |
      | session-expired-fr         | login_required    |
      | generic-error-main-long    | server_error      |
      | generic-error-ja           | server_error      |
      | benign-discontinued-note   | none              |
      | benign-not-found-coffee    | none              |
      | benign-subscribers-teaser  | none              |
      | benign-search-with-results | none              |
      | benign-error-help-article  | none              |

  @VERDICT-028
  Scenario Outline: A price the model typed is not a price the page shows, and a price the page filled in is: <case>
    Given the agent corpus site
    When the agent corpus case "<case>" runs
    Then the run ends as the case expects, with no value it did not validate

    Examples:
      | case                        |
      | typed-price-read-back               |
      | typed-price-the-page-states         |
      | typed-lots-beside-the-page-price    |
      | typed-alert-beside-a-read-only-price |

  @VERDICT-029
  Scenario: A model that writes the done_when text into an editable box is not done
    Given the agent corpus site
    When the agent corpus case "writes-the-done-text-itself" runs
    Then the run ends as the case expects, with no value it did not validate

  @VERDICT-037
  Scenario: A model whose own page script writes the title and the price its step checks, and the words on a later click, is not done
    Given the agent corpus site
    When the agent corpus case "script-writes-the-checked-words" runs
    Then the run ends as the case expects, with no value it did not validate
    And the done_when conditions that failed are text_includes, title_includes and field_matches

  @VERDICT-037
  Scenario: A model that runs a read-only function reads what the page's own script wrote after loading
    Given the agent corpus site
    When the agent corpus case "script-reads-the-page-that-wrote-itself" runs
    Then the run ends as the case expects, with no value it did not validate

  @VERDICT-039
  Scenario: A model whose own page script erases the words that must be absent, adds the element and moves the URL checked for is not done
    Given the agent corpus site
    When the agent corpus case "script-erases-what-must-be-absent" runs
    Then the run ends as the case expects, with no value it did not validate
    And the done_when conditions that failed are not, element and url_matches

  @VERDICT-040
  Scenario: A model whose own page script writes the checked element and the price inside the page's frames is not done
    Given the agent corpus site
    When the agent corpus case "script-writes-inside-the-frames" runs
    Then the run ends as the case expects, with no value it did not validate
    And the done_when conditions that failed are element and field_matches

  @VERDICT-040
  Scenario: A model that reads a price from a frame of its own making keeps nothing
    Given the agent corpus site
    When the agent corpus case "script-makes-a-frame-of-its-own" runs
    Then the run ends as the case expects, with no value it did not validate
    And the done_when conditions that failed are field_matches
    And the model was told "own_value"

  @VERDICT-040
  Scenario: A frame that writes its price over the model's script's reads as the frame states it
    Given the agent corpus site
    When the agent corpus case "frame-writes-over-the-script" runs
    Then the run ends as the case expects, with no value it did not validate

  @VERDICT-037 @VERDICT-040
  Scenario: A dataset write a model's page script leaves for later in a frame lands nowhere
    Given the agent corpus site
    When the agent corpus case "script-leaves-a-dataset-write-in-a-frame" runs
    Then the run ends as the case expects, with no value it did not validate
    And the done_when conditions that failed are field_matches

  @VERDICT-040
  Scenario: A model whose own page script writes a price into a frame behind a cross-origin frame keeps nothing
    Given the agent corpus site
    When the agent corpus case "script-writes-behind-a-cross-origin-frame" runs
    Then the run ends as the case expects, with no value it did not validate
    And the model was told "own_value"

  @VERDICT-043
  Scenario: A model whose own page script strips a sign-in wall the page turned into reads nothing there
    Given the agent corpus site
    When the agent corpus case "script-erases-a-wall-in-the-page" runs
    Then the run ends as the case expects, with no value it did not validate

  @VERDICT-043
  Scenario: A model whose own page script strips a sign-in wall inside a frame reads nothing there
    Given the agent corpus site
    When the agent corpus case "script-erases-a-wall-in-a-frame" runs
    Then the run ends as the case expects, with no value it did not validate

  @VERDICT-043
  Scenario: A model whose own page script erases what is no wall reads the price the page shows
    Given the agent corpus site
    When the agent corpus case "script-erases-what-is-no-wall" runs
    Then the run ends as the case expects, with no value it did not validate

  @VERDICT-038
  Scenario: A model that reads a price the page hides, beside the price it shows, keeps nothing
    Given the agent corpus site
    When the agent corpus case "reads-a-price-the-page-hides" runs
    Then the run ends as the case expects, with no value it did not validate
    And the model was told "not_shown"

  @VERDICT-044
  Scenario: A model that reads a price from an attribute the page does not show as text keeps nothing
    Given the agent corpus site
    When the agent corpus case "reads-a-price-from-an-attribute" runs
    Then the run ends as the case expects, with no value it did not validate
    And the model was told "not_shown"

  @VERDICT-046
  Scenario: A value read in a tab that became a wall before the model closed in another tab counts for nothing
    Given the agent corpus site
    When the agent corpus case "read-in-a-tab-that-became-a-wall" runs
    Then the run ends as the case expects, with no value it did not validate

  @VERDICT-027 @VERDICT-030
  Scenario: An error in the main content after a header and a sidebar with a price is still an error
    Given the agent corpus site
    When the agent corpus case "error-in-main-after-a-sidebar" runs
    Then the run ends as the case expects, with no value it did not validate
    And every page the model reached was judged, and the model was told each verdict

  @VERDICT-035
  Scenario Outline: A page that stands in for the site's content is a blocker: <page>
    When the labelled blocker page "<page>" is judged
    Then the page is judged "<kind>"

    Examples:
      | page                          | kind             |
      | default-nginx                 | page_not_found   |
      | default-apache-ubuntu         | page_not_found   |
      | default-bt-panel-zh           | page_not_found   |
      | parked-en                     | page_not_found   |
      | parked-zh                     | page_not_found   |
      | parked-de                     | page_not_found   |
      | coming-soon-bare              | page_not_found   |
      | coming-soon-zh                | page_not_found   |
      | coming-soon-ja                | page_not_found   |
      | moved-en                      | page_not_found   |
      | moved-zh                      | page_not_found   |
      | suspended-en                  | server_error     |
      | suspended-zh                  | server_error     |
      | bandwidth-en                  | server_error     |
      | region-isnt                   | access_denied    |
      | region-451                    | access_denied    |
      | region-ja                     | access_denied    |
      | age-gate-en                   | access_denied    |
      | age-gate-zh                   | access_denied    |
      | consent-gate                  | access_denied    |
      | js-app-shell                  | access_blocked   |
      | js-zh                         | access_blocked   |
      | bot-check-verifying           | access_blocked   |
      | bot-check-fr                  | access_blocked   |
      | benign-nginx-tutorial         | none             |
      | benign-nginx-short-howto      | none             |
      | benign-shop-coming-soon-shelf | none             |
      | benign-coming-soon-tiny-shop  | none             |
      | benign-parked-article         | none             |
      | benign-docs-listing           | none             |
      | listing-python                | none             |
      | benign-js-footer              | none             |
      | benign-wine-shop              | none             |
      | benign-consent-banner         | none             |
      | benign-zh-stay-tuned          | none             |

  @VERDICT-035
  Scenario Outline: A parked domain's price reaches no output, a "Coming soon" shelf beside the quote does: <case>
    Given the agent corpus site
    When the agent corpus case "<case>" runs
    Then the run ends as the case expects, with no value it did not validate

    Examples:
      | case                               |
      | parked-domain-with-a-price         |
      | coming-soon-shelf-beside-the-quote |

  @VERDICT-035
  Scenario: A plan step reads no price from a parked domain's page
    Given the agent corpus site
    When the plan "extract last" runs on "/probe/parked-au2606.html"
    Then the run ends "replans_exhausted" with blocker kind "page_not_found" and no output
