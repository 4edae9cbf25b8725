Feature: A secret written into a URL or a form body is still a secret
  A page, or a refused request the evidence names, may carry a secret percent-encoded: in a URL's
  query, in a form body, written by the browser's form encoding or by a script. Redaction finds it
  in each of those forms, as it finds it written raw or JSON-escaped.

  @SECRET-007
  Scenario: A secret written into a URL or a form body is redacted in every percent-encoded form
    Given a run's secrets hold a token with a space, a slash, an apostrophe, a tilde and a non-ASCII letter
    When texts hold it as a URL query, encodeURIComponent, a form body and lower-case hex write it
    Then each text shows «secret:token» in its place, and none holds the token or an encoding of it
