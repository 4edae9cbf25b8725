Feature: A run recovers from a dead link through search, and says why each page was rejected
  Every observation is validated against the recipe's target. A blocked page gets a
  machine-readable blocker kind with evidence; the run searches for a better page on an
  allowed domain, never retries a URL, and completes only with verified, valid output.

  @EXEC-001 @EXEC-017
  Scenario: The demo quote run recovers from a 404 through search and completes
    When I run the demo recipe for "gold"
    Then the run ends "completed" with stop reason "completed"
    And the start page was classified "page_not_found" with its status, title and snippet as evidence
    And the run replanned through the search page and followed the allowed-domain quote page
    And the not-allowed mirror and the already tried URL were skipped
    And the output holds the gold price 2345.6 in "USD" and is valid
    And the run directory holds events, plans, executions, output, verdict and a screenshot
    And every step reports a summary and agent state, and every event carries the run's trace id
    And the final verdict is the last event, exactly once

  @EXEC-002
  Scenario Outline: Each kind of bad page is classified with its blocker kind
    When I open "<path>" on the <host> host expecting a "<metal>" quote
    Then the run ends "error" with stop reason "replans_exhausted"
    And the verdict names blocker "<blocker>"
    And the blocked observation's evidence names the url and status <status>

    Examples:
      | host   | path              | metal  | blocker            | status |
      | quote  | /quotes/gold-old  | gold   | page_not_found     | 404    |
      | quote  | /status/403       | gold   | access_denied      | 403    |
      | quote  | /status/401       | gold   | access_denied      | 401    |
      | quote  | /status/503       | gold   | server_error       | 503    |
      | quote  | /status/202       | gold   | status_mismatch    | 202    |
      | quote  | /blocked          | gold   | captcha            | 200    |
      | quote  | /quotes/silver    | gold   | keywords_missing   | 200    |
      | search | /quotes/gold      | gold   | domain_not_allowed | none   |
      | closed | /quotes/gold      | gold   | navigation_failed  | none   |

  @EXEC-003
  Scenario: Replans run out when no search result leads to an allowed, untried page
    When I run the demo recipe for "copper"
    Then the run ends "error" with stop reason "replans_exhausted"
    And the verdict names blocker "page_not_found"
    And each replan was announced with a failure summary and recorded in plans.json
    And no page was opened twice
    And the final verdict is the last event, exactly once
