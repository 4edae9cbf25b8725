Feature: The hostile corpus: an allowed host, a counting off-domain host, and labels
  The corpus proves the network policy end to end (the Chromium-driven runs live with the browser
  session). These scenarios prove the fixture itself: that the counter cannot miss a request and
  that every page has a written expectation before anything runs.

  @POLICY-013
  Scenario: The off-domain host counts connections and request lines at the socket
    Given the hostile site
    When a client opens a connection to the off-domain host and closes it without a byte
    Then the off-domain host saw 1 connection and 0 requests
    When a client sends the raw line "NOT HTTP AT ALL" to the off-domain host
    Then the off-domain host saw 2 connections and 1 request
    When a client sends a WebSocket handshake straight to the off-domain host
    Then the off-domain host answers 101
    And the off-domain host saw 3 connections and 2 requests
    When the count is reset
    Then the off-domain host saw 0 connections and 0 requests

  @POLICY-013
  Scenario: IPv6 loopback reaches the counting host too
    Given the hostile site
    When a client sends "GET http://[::1]:{off}/quote.html" straight to the off-domain host
    Then the off-domain host saw 1 connection and 1 request

  @POLICY-014
  Scenario: Every page has its labels, and the labels cover every request class
    Given the hostile corpus labels
    Then there are at least 45 hostile pages and 5 benign pages
    And every label expects 0 off-domain requests
    And every completed label names its value and no blocker, and every failed one names a blocker
    And the labels cover the classes "redirect, refresh, js-navigation, scheme, frame, form, popup, subresource, websocket, stream, worker, start-url, benign"

  @POLICY-014
  Scenario: The allowed host serves every page the labels start from
    Given the hostile site
    And the hostile corpus labels
    Then every page that starts on the allowed host is served there

  @POLICY-014
  Scenario: The corpus recipe compiles with the allowed host as its only allowed domain
    Given the hostile site
    When the corpus recipe is loaded for the site
    Then its allowed domains are exactly the allowed host
    And it compiles to a plan that ends in replans_exhausted when a blocker persists
