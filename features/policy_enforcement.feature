Feature: A run's network policy in the browser: what it refuses and what a refusal looks like
  The run's browser context sends every request through the run's own policy proxy. A refused
  top-frame navigation stops the run's page path with domain_not_allowed or scheme_not_allowed
  and the attempt as evidence; a refused subresource is recorded and the run goes on; a click is
  judged by where it would go; private networks need an explicit permission.

  @POLICY-018
  Scenario: A browser context whose policy proxy is gone fails closed
    Given the hostile site
    And a browser session under a network policy that allows every host
    When its policy proxy stops
    And the session opens the allowed page, then an off-domain page
    Then both navigations fail
    And the off-domain host saw no connection at all

  @POLICY-019
  Scenario: A redirect to another host stops the path with the hop as evidence, never navigation_failed
    Given the hostile site
    When the corpus page "redirect-302" runs through the run API
    Then the run ends "replans_exhausted" with blocker "domain_not_allowed"
    And the evidence names the off-domain URL, the trigger "redirect", the hop from the allowed host with status 302, the tab and the frame
    And no step of the run reported navigation_failed
    And the off-domain host saw no connection at all

  @POLICY-019
  Scenario: A script navigation after load is named with its trigger
    Given the hostile site
    When the corpus page "js-location-onload" runs through the run API
    Then the run ends "replans_exhausted" with blocker "domain_not_allowed"
    And the evidence names the off-domain URL and the trigger "scriptInitiated"
    And the off-domain host saw no connection at all

  @POLICY-019
  Scenario: A refused start URL is judged before the browser is asked to load it
    Given the hostile site
    When the corpus page "start-userinfo" runs through the run API
    Then the run ends "replans_exhausted" with blocker "domain_not_allowed"
    And the browser was never asked to open a URL
    And the evidence says the judge refused it before it was opened
    And the off-domain host saw no connection at all

  @POLICY-020
  Scenario: Refused requests are guardrail_tripped events, bounded, and verdict.json counts them with samples
    Given the hostile site
    When the support page "many-blocked" runs through the run API
    Then the run completes with the value "Q-3001"
    And the first 20 refusals were reported one guardrail_tripped event each and the others in one more
    And verdict.json counts at least 30 blocked requests, by kind, with 10 samples
    And the off-domain host saw no connection at all

  @POLICY-021
  Scenario Outline: A click is judged by where it would go, and nothing is clicked when that is refused
    Given the hostile site
    And a browser session under a network policy that allows only the allowed host
    And the session shows the support page "links"
    When I click the element "<element>"
    Then the click fails with blocked_url naming "<kind>"
    And the session still shows the support page "links"
    And the off-domain host saw no connection at all

    Examples:
      | element    | kind               |
      | #off       | domain_not_allowed |
      | #off-blank | domain_not_allowed |
      | #js        | scheme_not_allowed |
      | #data      | scheme_not_allowed |
      | #send      | domain_not_allowed |

  @POLICY-021
  Scenario: A click on an allowed link follows it
    Given the hostile site
    And a browser session under a network policy that allows only the allowed host
    And the session shows the support page "links"
    When I click the element "#ok-inner"
    Then the click succeeds and the session shows the corpus page "benign-static"

  @POLICY-022
  Scenario Outline: Private networks need the recipe's, or for a served recipe the server's, permission
    Given the hostile site
    When "benign-static" runs with allowed domains "<domains>", target.allow_private_network <switch> and the server's say "<server>"
    Then the run ends "<reason>" with blocker "<kind>"

    Examples:
      | domains          | switch | server | reason            | kind               |
      |                  | false  | none   | replans_exhausted | domain_not_allowed |
      |                  | true   | none   | completed         | none               |
      | 127.0.0.1:{port} | false  | none   | completed         | none               |
      | localhost:{port} | false  | none   | completed         | none               |
      | 127.0.0.1:{port} | false  | false  | replans_exhausted | domain_not_allowed |
      | 127.0.0.1:{port} | true   | false  | replans_exhausted | domain_not_allowed |
      | 127.0.0.1:{port} | false  | true   | completed         | none               |

  @POLICY-032
  Scenario Outline: A page that sends the fence's refusal header itself is not taken for a refusal
    Given the hostile site
    When the corpus page "<page>" runs through the run API
    Then the run ends "<reason>" with blocker "<kind>"
    And verdict.json counts no blocked request
    And the off-domain host saw no connection at all

    Examples:
      | page               | reason            | kind          |
      | forged-refusal-200 | completed         | none          |
      | forged-refusal-403 | replans_exhausted | access_denied |
