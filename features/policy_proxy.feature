Feature: The policy proxy judges every request before anything leaves for its target
  A browser context sends all its traffic through the policy proxy (WebSocket included, as
  CONNECT). The proxy asks the URL judge about each request and only then opens a connection, to
  an address it resolved and vetted itself. These scenarios drive the proxy with raw sockets
  against the hostile fixture's hosts: an allowed host, and an off-domain host that counts every
  connection it receives.

  Background:
    Given the hostile site
    And a policy proxy that allows only the allowed host

  @POLICY-007
  Scenario Outline: Every off-domain spelling is refused before a connection is made
    When a client sends "<request>" through the proxy
    Then the proxy answers 403 naming "domain_not_allowed"
    And the off-domain host saw no connection at all
    And the proxy counted 1 blocked request

    Examples:
      | request                                                   |
      | GET http://evil.localhost:{off}/quote.html                |
      | GET http://localhost:{off}/                               |
      | GET http://127.0.0.1:{off}/                               |
      | GET http://2130706433:{off}/                              |
      | GET http://0x7f.1:{off}/                                  |
      | GET http://0177.0.0.1:{off}/                              |
      | GET http://[::1]:{off}/                                   |
      | GET http://[::ffff:127.0.0.1]:{off}/                      |
      | GET http://127.0.0.1:{allowed}@evil.localhost:{off}/      |
      | GET http://127.0.0.1%2eevil.localhost:{off}/              |
      | POST http://evil.localhost:{off}/collect                  |
      | CONNECT evil.localhost:{off}                              |
      | CONNECT 127.0.0.1:{off}                                   |
      | CONNECT [::1]:{off}                                       |
      | CONNECT localhost:443                                     |
      | WEBSOCKET ws://evil.localhost:{off}/ws                    |

  @POLICY-007
  Scenario: The same requests without the proxy do reach the counting host
    When a client sends "GET http://127.0.0.1:{off}/quote.html" straight to the off-domain host
    Then the off-domain host saw 1 connection and 1 request

  @POLICY-008
  Scenario: A listed name that resolves to a private address is refused
    Given a resolver that answers "quotes.example" with "127.0.0.1"
    And a policy proxy that allows "quotes.example:{off}"
    When a client sends "GET http://quotes.example:{off}/quote.html" through the proxy
    Then the proxy answers 403 naming "domain_not_allowed"
    And the refusal names the private class "loopback"
    And the off-domain host saw no connection at all

  @POLICY-008
  Scenario: The proxy connects to the address it vetted, resolving once per request
    Given a resolver that answers "quotes.example" with "127.0.0.1" and then "203.0.113.9"
    And a policy proxy that allows "quotes.example:{off}" and private networks
    When a client sends "GET http://quotes.example:{off}/quote.html" through the proxy
    Then the proxy answers 200
    And the resolver was asked 1 time
    And the off-domain host saw 1 connection and 1 request

  @POLICY-009
  Scenario: Allowed requests pass through unchanged, bodies and all
    When a client fetches a 5000000-byte response from the allowed host through the proxy
    Then it receives the same 5000000 bytes as without the proxy
    When a client posts 300000 bytes to the allowed host through the proxy
    Then the allowed host echoes the same 300000 bytes
    When a client posts 300000 bytes in chunks to the allowed host through the proxy
    Then the allowed host echoes the same 300000 bytes
    When a client sends 3 requests on one kept-alive proxy connection
    Then all 3 are answered on that one connection

  @POLICY-009
  Scenario: CONNECT tunnels and WebSocket upgrades to an allowed host carry bytes both ways
    Given a policy proxy that allows only the off-domain host
    When a client opens a CONNECT tunnel through the proxy and sends a request inside it
    Then the answer comes back through the tunnel
    When a client upgrades to a WebSocket through the proxy
    Then the proxy passes 101 and the server's first frame

  @POLICY-010
  Scenario: A refusal is counted, kept with its Sec-Fetch headers and told to the listener first
    Given a policy proxy that keeps 2 samples and tells a listener
    When a client sends 3 off-domain requests with Sec-Fetch-Dest "iframe"
    Then the proxy counted 3 blocked requests
    And the log keeps the last 2 samples with Sec-Fetch-Dest "iframe"
    And the listener heard of each refusal before its 403 was sent

  @POLICY-010
  Scenario: A failing listener does not open the door
    Given a policy proxy whose listener fails
    When a client sends "GET http://evil.localhost:{off}/" through the proxy
    Then the proxy answers 403 naming "domain_not_allowed"
    And the off-domain host saw no connection at all

  @POLICY-011
  Scenario Outline: A malformed request gets a status, and the proxy goes on
    When a client sends the raw bytes "<bytes>" to the proxy
    Then the proxy answers <status>
    And the proxy still forwards an allowed request

    Examples:
      | bytes                                                                                      | status |
      | GARBAGE\r\n\r\n                                                                             | 400    |
      | GET / HTTP/1.1\r\nHost: x\r\n\r\n                                                          | 400    |
      | GET http://127.0.0.1:{allowed}/ HTTP/2.0\r\n\r\n                                                     | 505    |
      | POST http://127.0.0.1:{allowed}/ HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n | 400    |
      | POST http://127.0.0.1:{allowed}/ HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n                         | 501    |
      | GET http://127.0.0.1:{allowed}/ HTTP/1.1\r\n folded: header\r\n\r\n                                  | 400    |
      | GET https://127.0.0.1:{allowed}/ HTTP/1.1\r\n\r\n                                                    | 501    |

  @POLICY-011
  Scenario: An oversized head is refused with 431
    When a client sends a request head of 70000 bytes to the proxy
    Then the proxy answers 431
    And the proxy still forwards an allowed request

  @POLICY-011
  Scenario: Stopping the proxy ends open tunnels and frees its port
    Given a policy proxy that allows only the off-domain host
    When a client holds a CONNECT tunnel open through the proxy
    And the proxy is stopped
    Then the tunnel is closed
    And nothing listens on the proxy's port any more

  @POLICY-012
  Scenario Outline: A redirect to another scheme is refused at the proxy
    When a client sends "GET http://127.0.0.1:{allowed}/redirect/302?to=<location>" through the proxy
    Then the proxy answers 403 naming "scheme_not_allowed"

    Examples:
      | location                                  |
      | data:text/html,<p id=quote>Q-6666</p>     |
      | file:///etc/passwd                        |
      | javascript:alert(1)                       |

  @POLICY-037
  Scenario: Only the proxy's own answers carry the fence's refusal header
    When a client sends "GET http://127.0.0.1:{allowed}/pages/forged-refusal-200.html" through the proxy
    Then the proxy answers 200
    And the answer carries no X-Verity-Blocker header, though the allowed host sent one
    When a client sends "GET http://evil.localhost:{off}/quote.html" through the proxy
    Then the proxy answers 403 naming "domain_not_allowed"
