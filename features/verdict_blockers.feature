Feature: A blocked page is named for what it is
  A run that meets a soft 404, a login wall, a captcha, a bot wall or a rate limit says so with
  the right blocker kind and the evidence, in English and in Chinese; an ordinary page that only
  mentions those words is not a blocker.

  @VERDICT-003
  Scenario Outline: Blocker pages get their kind
    Given the labelled page "<case>"
    When its blocker is detected
    Then the blocker kind is "<kind>"

    Examples:
      | case                   | kind             |
      | soft404-en-short       | page_not_found   |
      | soft404-en-title-long  | page_not_found   |
      | soft404-zh             | page_not_found   |
      | http-404               | page_not_found   |
      | login-en-form          | login_required   |
      | login-en-redirect      | login_required   |
      | login-zh-form          | login_required   |
      | login-zh-wall          | login_required   |
      | login-401-challenge    | login_required   |
      | captcha-en-short       | captcha          |
      | captcha-zh-verify      | captcha          |
      | captcha-zh-human       | captcha          |
      | blocked-cloudflare     | access_blocked   |
      | blocked-zh             | access_blocked   |
      | http-429-seconds       | rate_limited     |
      | soft-rate-zh           | rate_limited     |
      | http-403-plain         | access_denied    |
      | http-401-no-challenge  | access_denied    |
      | http-500               | server_error     |
      | http-400               | status_mismatch  |

  @VERDICT-003
  Scenario: A soft 404 is reported as page_not_found and marked soft
    Given the labelled page "soft404-zh"
    When its blocker is detected
    Then the blocker kind is "page_not_found"
    And the finding is marked soft with the phrase "页面不存在"

  @VERDICT-003
  Scenario: HTTP 429 carries its Retry-After date as seconds
    Given the labelled page "http-429-date"
    When its blocker is detected at "2026-10-21T07:28:00+00:00"
    Then the blocker kind is "rate_limited"
    And the evidence says to retry after 120 seconds

  @VERDICT-004
  Scenario Outline: Pages that only mention blocker words are not blockers
    Given the labelled page "<case>"
    When its blocker is detected
    Then no blocker is found

    Examples:
      | case                       |
      | benign-captcha-article     |
      | benign-footer-login        |
      | benign-404-coffee          |
      | benign-429-article         |
      | benign-sidebar-login       |
      | benign-zh-article          |
      | benign-zh-quote-login-link |
      | benign-recaptcha-footer    |

  @VERDICT-005
  Scenario: The replan after a rate limit is told to wait the Retry-After time
    Given the labelled page "http-429-seconds"
    When its blocker is detected
    Then the replan guidance says to wait "30 s" before asking again

  @VERDICT-005
  Scenario: The replan after a soft 404 is told it was a soft 404
    Given the labelled page "soft404-en-short"
    When its blocker is detected
    Then the replan guidance mentions "soft 404"

  @VERDICT-041
  Scenario Outline: A long page under a layer that is a wall is that wall
    Given the labelled page "<case>"
    When its blocker is detected
    Then the blocker kind is "<kind>"
    And the evidence names the covering layer

    Examples:
      | case                | kind           |
      | cover-login-form    | login_required |
      | cover-paywall       | login_required |
      | cover-paywall-inert | login_required |
      | cover-session-zh    | login_required |
      | cover-captcha       | captcha        |
      | cover-access-denied | access_denied  |
      | cover-bot-wall      | access_blocked |

  @VERDICT-041
  Scenario Outline: A layer as large that is no wall is no blocker
    Given the labelled page "<case>"
    When its blocker is detected
    Then no blocker is found

    Examples:
      | case                    |
      | cover-benign-lightbox   |
      | cover-benign-newsletter |
      | cover-benign-loading    |

  @VERDICT-042
  Scenario Outline: A sign-in prompt over the page with a way past it is a popup, not a wall
    Given the labelled page "<case>"
    When its blocker is detected
    Then no blocker is found
    And the covering layer's way past it is "<control>"

    Examples:
      | case                       | control                     |
      | cover-dismissible-signin   | ×                           |
      | cover-dismissible-zh       | 暂不登录                    |
      | cover-dismissible-continue | Continue without signing in |

  @VERDICT-042
  Scenario Outline: A layer that offers only ways in, a captcha with a close button, or a prompt holding the value read, is still a wall
    Given the labelled page "<case>"
    When its blocker is detected
    Then the blocker kind is "<kind>"
    And the evidence names the covering layer

    Examples:
      | case                              | kind           |
      | cover-paywall-ways-in             | login_required |
      | cover-captcha-close               | captcha        |
      | cover-dismissible-holds-the-value | login_required |
