Feature: A blocked page is named for what it is
  A run that meets a soft 404, a login wall, a captcha, a bot wall or a rate limit says so with
  the right blocker kind and the evidence, in English, Chinese and the other languages the phrases
  cover; an ordinary page that only mentions those words is not a blocker.

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

  @VERDICT-045
  Scenario Outline: Blocker and stand-in pages get their kind in other languages
    Given the labelled page "<case>"
    When its blocker is detected
    Then the blocker kind is "<kind>"

    Examples:
      | case                  | kind              |
      | zh-hant-soft404       | page_not_found    |
      | zh-hant-login         | login_required    |
      | zh-hant-login-title   | login_required    |
      | zh-hant-session       | login_required    |
      | zh-hant-captcha       | captcha           |
      | zh-hant-denied        | access_denied     |
      | zh-hant-blocked       | access_blocked    |
      | zh-hant-rate          | rate_limited      |
      | zh-hant-error         | server_error      |
      | zh-hant-maintenance   | server_error      |
      | zh-hant-no-results    | no_search_results |
      | zh-hant-js            | access_blocked    |
      | zh-hant-parked        | page_not_found    |
      | zh-hant-coming-soon   | page_not_found    |
      | zh-hant-parked-title  | page_not_found    |
      | ko-soft404-heading    | page_not_found    |
      | ko-login-heading      | login_required    |
      | ko-denied-heading     | access_denied     |
      | ko-rate-heading       | rate_limited      |
      | ko-js-heading         | access_blocked    |
      | ko-parked-heading     | page_not_found    |
      | pt-blocked-heading    | access_blocked    |
      | pt-no-results-heading | no_search_results |
      | ru-blocked-heading    | access_blocked    |
      | ru-parked-heading     | page_not_found    |
      | it-session-heading    | login_required    |
      | it-no-results-heading | no_search_results |
      | ja-soft404-not-exist  | page_not_found    |
      | ja-login-heading      | login_required    |
      | ja-denied-restricted  | access_denied     |
      | de-soft404-not-exist  | page_not_found    |
      | de-denied-zugang      | access_denied     |
      | de-login-einloggen    | login_required    |
      | de-login-must         | login_required    |
      | fr-soft404-not-exist  | page_not_found    |
      | fr-login-must         | login_required    |
      | fr-denied-interdit    | access_denied     |
      | es-soft404-not-exist  | page_not_found    |
      | es-login-need         | login_required    |
      | es-login-heading      | login_required    |
      | ru-soft404-not-exist  | page_not_found    |
      | ru-denied-limited     | access_denied     |
      | ko-soft404-not-exist  | page_not_found    |
      | ko-soft404            | page_not_found    |
      | ko-login              | login_required    |
      | ko-session            | login_required    |
      | ko-captcha            | captcha           |
      | ko-denied             | access_denied     |
      | ko-blocked            | access_blocked    |
      | ko-rate               | rate_limited      |
      | ko-error              | server_error      |
      | ko-maintenance        | server_error      |
      | ko-no-results         | no_search_results |
      | ko-js                 | access_blocked    |
      | ko-parked             | page_not_found    |
      | ko-coming-soon        | page_not_found    |
      | pt-soft404            | page_not_found    |
      | pt-login              | login_required    |
      | pt-session            | login_required    |
      | pt-captcha            | captcha           |
      | pt-denied             | access_denied     |
      | pt-blocked            | access_blocked    |
      | pt-rate               | rate_limited      |
      | pt-error              | server_error      |
      | pt-maintenance        | server_error      |
      | pt-no-results         | no_search_results |
      | pt-js                 | access_blocked    |
      | pt-parked             | page_not_found    |
      | pt-coming-soon        | page_not_found    |
      | ru-soft404            | page_not_found    |
      | ru-login              | login_required    |
      | ru-session            | login_required    |
      | ru-captcha            | captcha           |
      | ru-denied             | access_denied     |
      | ru-blocked            | access_blocked    |
      | ru-rate               | rate_limited      |
      | ru-error              | server_error      |
      | ru-maintenance        | server_error      |
      | ru-no-results         | no_search_results |
      | ru-js                 | access_blocked    |
      | ru-parked             | page_not_found    |
      | ru-coming-soon        | page_not_found    |
      | it-soft404            | page_not_found    |
      | it-login              | login_required    |
      | it-session            | login_required    |
      | it-captcha            | captcha           |
      | it-denied             | access_denied     |
      | it-blocked            | access_blocked    |
      | it-rate               | rate_limited      |
      | it-error              | server_error      |
      | it-maintenance        | server_error      |
      | it-no-results         | no_search_results |
      | it-js                 | access_blocked    |
      | it-parked             | page_not_found    |
      | it-coming-soon        | page_not_found    |

  @VERDICT-045
  Scenario Outline: Pages in other languages that only mention blocker words are not blockers
    Given the labelled page "<case>"
    When its blocker is detected
    Then no blocker is found

    Examples:
      | case                            |
      | benign-fr-404-help              |
      | benign-de-404-help              |
      | benign-zh-hant-quote-login-link |
      | benign-zh-hant-404-article      |
      | benign-zh-hant-loading-done     |
      | benign-ko-quote-login-link      |
      | benign-ko-comment-box           |
      | benign-ko-404-article           |
      | benign-ko-loading-done          |
      | benign-pt-quote-login-link      |
      | benign-pt-comment-box           |
      | benign-pt-404-article           |
      | benign-pt-loading-done          |
      | benign-ru-quote-login-link      |
      | benign-ru-comment-box           |
      | benign-ru-404-article           |
      | benign-ru-loading-done          |
      | benign-it-quote-login-link      |
      | benign-it-js-help               |
      | benign-it-loading-done          |
