Feature: One judge for every URL a run may reach
  A URL is read the way Chromium reads it, then judged against the recipe's allowed domains, the
  schemes a run may use and the private-network rule. The start URL, links, fallback results,
  agent tool arguments and every request the policy proxy sees go through this one judge.

  @POLICY-001
  Scenario: The judge's table of URL cases
    Given the URL cases in "tests/policy/url_cases.yaml"
    When every case is judged
    Then every judgement has its expected verdict, host and port
    And the table holds at least 60 cases

  @POLICY-002
  Scenario Outline: A look-alike URL is judged by the host the browser connects to
    Given the allowed domains "allowed.com"
    When the URL "<url>" is judged
    Then it is refused with "domain_not_allowed" for the host "<host>"

    Examples:
      | url                                   | host                 |
      | http://allowed.com.evil.com/          | allowed.com.evil.com |
      | http://evil.com/allowed.com           | evil.com             |
      | http://allowed.com@evil.com/          | evil.com             |
      | https://allowed.com:443@evil.com/     | evil.com             |
      | http://allowed.com%2eevil.com/        | allowed.com.evil.com |
      | http://evil.com#@allowed.com          | evil.com             |
      | http://allowed.com.evil.com./path     | allowed.com.evil.com. |
      | http://xn--llowed-2nf.com/            | xn--llowed-2nf.com   |

  @POLICY-002
  Scenario: A backslash ends the authority, so userinfo after it is path
    Given the allowed domains "allowed.com"
    When the URL "http://evil.com\@allowed.com/" is judged
    Then it is refused with "domain_not_allowed" for the host "evil.com"

  @POLICY-003
  Scenario Outline: Every spelling of an allowed address is that address
    Given the allowed domains "127.0.0.1:8080, [::1]:8080"
    When the URL "<url>" is judged
    Then it is allowed for the host "<host>" on port 8080

    Examples:
      | url                                | host      |
      | http://2130706433:8080/            | 127.0.0.1 |
      | http://0x7f.1:8080/                | 127.0.0.1 |
      | http://0177.0.0.1:8080/            | 127.0.0.1 |
      | http://127.1:8080/                 | 127.0.0.1 |
      | http://0x7f000001:8080/            | 127.0.0.1 |
      | http://[0:0:0:0:0:0:0:1]:8080/     | [::1]     |

  @POLICY-003
  Scenario Outline: No spelling of another address passes as the allowed one
    Given the allowed domains "127.0.0.1:8080"
    When the URL "<url>" is judged
    Then it is refused with "domain_not_allowed" for the host "<host>"

    Examples:
      | url                               | host             |
      | http://2130706433:8081/           | 127.0.0.1        |
      | http://[::ffff:127.0.0.1]:8080/   | [::ffff:7f00:1]  |
      | http://2130706434:8080/           | 127.0.0.2        |

  @POLICY-004
  Scenario Outline: Only http and https may be navigated to
    Given the allowed domains "allowed.com"
    When the URL "<url>" is judged
    Then it is refused with "scheme_not_allowed"

    Examples:
      | url                                          |
      | data:text/html,<p id=quote>Q-6666</p>        |
      | blob:http://allowed.com/0b5c1a2e             |
      | javascript:location='http://evil.com/'       |
      | file:///etc/passwd                           |
      | filesystem:http://allowed.com/temporary/x    |
      | chrome://settings/                           |
      | view-source:http://allowed.com/              |
      | about:srcdoc                                 |
      | ws://allowed.com/socket                      |
      | //allowed.com/                               |

  @POLICY-004
  Scenario: about:blank is allowed, and ws: only as a WebSocket
    Given the allowed domains "allowed.com"
    When the URL "about:blank" is judged
    Then it is allowed
    When the URL "wss://allowed.com/socket" is judged as a WebSocket
    Then it is allowed for the host "allowed.com" on port 443
    When the URL "wss://evil.com/socket" is judged as a WebSocket
    Then it is refused with "domain_not_allowed" for the host "evil.com"

  @POLICY-005
  Scenario: A wildcard matches subdomains at any depth but not the apex; a port must match
    Given the allowed domains "*.example.com, 127.0.0.1:9000"
    Then the URL "https://a.b.example.com/" is allowed
    And the URL "https://example.com/" is refused
    And the URL "https://badexample.com/" is refused
    And the URL "http://127.0.0.1:9000/" is allowed
    And the URL "http://127.0.0.1:9001/" is refused

  @POLICY-005
  Scenario: An empty list allows every public host
    Given no allowed domains
    Then the URL "https://anything.example.net/" is allowed

  @POLICY-005
  Scenario Outline: A bad allowed-domain pattern is refused with a reason
    When the allowed-domain pattern "<pattern>" is checked
    Then it is refused with a reason mentioning "<reason>"

    Examples:
      | pattern           | reason                  |
      | example.com\n     | whitespace              |
      | 127.0.0.1:65536   | port                    |
      | 127.0.0.1:0       | port                    |
      | *.0.0.1           | not an IP address       |
      | bücher.example    | punycode                |
      | ::1               | brackets                |
      | Example.com       | lowercase               |
      | https://a.com/    | is a URL                |
      | a.*.example       | leading                 |
      | 1.2.3.4.5         | at most four parts      |

  @POLICY-005
  Scenario: A pattern's address is compared in canonical form
    Given the allowed domains "0x7f.0.0.1:8080"
    Then the URL "http://127.0.0.1:8080/" is allowed

  @POLICY-006
  Scenario Outline: Private addresses are refused unless the policy allows them
    Given no allowed domains
    When the URL "<url>" is judged
    Then it is refused as a "<class>" address
    When private networks are allowed
    And the URL "<url>" is judged
    Then it is allowed

    Examples:
      | url                                  | class                          |
      | http://127.0.0.1:8000/               | loopback                       |
      | http://localhost:8000/               | loopback                       |
      | http://evil.localhost/               | loopback                       |
      | http://10.1.2.3/                     | private (RFC 1918)             |
      | http://100.64.0.1/                   | shared address space (CGNAT)   |
      | http://169.254.169.254/latest/       | cloud metadata                 |
      | http://[fd00:ec2::254]/              | cloud metadata                 |
      | http://100.100.100.200/              | cloud metadata                 |
      | http://[::ffff:a9fe:a9fe]/           | cloud metadata (IPv4-mapped 169.254.169.254) |
      | http://[fe80::1]/                    | link-local                     |
      | http://[fc00::1]/                    | unique-local                   |
      | http://0.0.0.0/                      | unspecified                    |
      | http://224.0.0.1/                    | multicast                      |

  @POLICY-006
  Scenario: An allowed_domains entry that is an IP literal or a localhost name names its private host
    Given the allowed domains "127.0.0.1:8000, *.localhost, 10.0.0.5"
    Then the URL "http://127.0.0.1:8000/" is allowed
    And the URL "http://app.localhost:3000/" is allowed
    And the URL "http://10.0.0.5/" is allowed
    And the URL "http://10.0.0.6/" is refused
    And the URL "http://localhost:3000/" is refused

  @POLICY-006
  Scenario: A name on the list is allowed, and its addresses are left for the proxy to check
    Given the allowed domains "intranet.example"
    When the URL "http://intranet.example/" is judged
    Then it is allowed, and its resolved addresses must be checked
