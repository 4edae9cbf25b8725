Feature: Replans respect what a page asked for, and values say where they came from
  A rate-limited site asks not to be asked again before Retry-After; a value read from a page must
  name the validated document it came from.

  @VERDICT-008
  Scenario: A short Retry-After is waited out before the same host is asked again
    When the recipe "retry_after/rate-limited-short" runs against the corpus site
    Then the run ends "replans_exhausted" with blocker "rate_limited"
    And plans.json says the replan "waited Retry-After 1 s before asking the host again"

  @VERDICT-008
  Scenario: A Retry-After longer than the replan's budget is not slept and the host is not asked
    When the recipe "retry_after/rate-limited-long" runs against the corpus site
    Then the run ends "replans_exhausted" with blocker "rate_limited"
    And plans.json says the replan "not asked: Retry-After 30 s is longer than the 3 s left to this replan"
    And no search page was opened

  @VERDICT-009
  Scenario: A value changed by script on the validated document says its content changed
    When the corpus case "script-replaced-on-click" runs
    Then the run completes with price 2399.9
    And the price came from the validated document, whose content changed since validation
    And the read step read the page once, with the fingerprint of the document it read

  @VERDICT-009
  Scenario: A value read after a late navigation comes from the new, validated document
    When the corpus case "late-redirect-allowed-valid" runs
    Then the run completes with price 31.5
    And the price came from the validated document at "/late/target-valid.html"
    And the read step dropped its first read, validated the new document and read it again
