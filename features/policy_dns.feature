Feature: DNS is part of the fence
  A run's requests go through its policy proxy, which looks up only the names the run allows. But
  a browser can look names up itself: WebRTC resolves its TURN servers and remote candidates by
  name before any connection is refused, and the browser's own services resolve theirs (issue 33).
  Verity starts its Chromium with every name mapped to "not found" in the browser's resolver. These
  scenarios run in a network namespace whose only resolver is a DNS server of the tests that writes
  down every name it is asked; the allowed site is reached by name, answered by that server.

  @POLICY-029
  Scenario: A page that names off-domain hosts every way it can gets none of them looked up
    Given the DNS fence pages run inside a network namespace whose resolver counts every query
    When the names page runs in a session with the network policy on the launched Chromium
    Then the page showed that every attempt was spent
    And the resolver was asked about the allowed name and nothing else
    And the policy proxy refused the TURN and TURNS servers by name

  @POLICY-035
  Scenario: A Chromium attached with the DNS fence flags is accepted, and its pages get no name looked up either
    Given the DNS fence pages run inside a network namespace whose resolver counts every query
    When the names page runs in a session with the network policy on a Chromium attached with the DNS fence flags
    Then Verity accepted that Chromium
    And the page showed that every attempt was spent
    And the resolver was asked about the allowed name and nothing else
    And the policy proxy refused the TURN and TURNS servers by name

  @POLICY-030
  Scenario: A secret an agent step types into a page that names a TURN server after it is never looked up
    Given the DNS fence pages run inside a network namespace whose resolver counts every query
    When a recipe's agent step types a secret token into the token page, through the run API on the launched Chromium
    Then the run completes with the page's quote
    And the resolver was asked about the allowed name and nothing else
    And no name the resolver was asked holds the token

  @POLICY-031
  Scenario: Without the DNS fence the same pages do get their names looked up
    Given the DNS fence pages run inside a network namespace whose resolver counts every query
    When the same pages run on a Chromium started without the DNS fence, the token typed by the session
    Then the resolver was asked about the TURN and TURNS servers and both remote candidates
    And the resolver was asked about a name holding the token
    And Verity refused to attach that Chromium as dns_not_fenced, naming the host-resolver rules
