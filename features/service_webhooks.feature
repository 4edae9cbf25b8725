Feature: Webhooks: a run's end, delivered to the service that started it
  A service that starts hundreds of runs learns that each one ended from a signed request, instead
  of holding a stream open for each; the delivery never changes or delays the run's verdict.

  @SVC2-005 @SVC2-006
  Scenario: A receiver gets one signed delivery of a run's terminal state, after the verdict
    Given a webhook receiver on loopback
    And a server that sends every run's terminal state to the receiver
    When a served run ends
    Then the receiver gets one delivery, whose signature verifies with the shared secret and not with another
    And its body is the run's terminal state, and its webhook id names the run
    And the run's stream still ends with its final verdict, and after it one attempt is recorded delivered

  @SVC2-005
  Scenario: A webhook without a valid secret keeps the server from starting
    Then a server with a webhook and no secret, or a secret that is not whsec_ and base64, does not start
    And a config file's webhook_secret_file and webhook_allowed_urls become the server's webhook settings

  @SVC2-006
  Scenario: A receiver that answers 500 twice gets the delivery on the third try
    Given a webhook receiver on loopback that answers 500, 500, then 200
    And a server that sends every run's terminal state to the receiver, in at most 3 attempts
    When a served run ends
    Then the receiver gets three attempts with one webhook id, each signed afresh
    And the run records them retrying, retrying, delivered, with waits that double

  @SVC2-006
  Scenario: A receiver that never answers changes nothing in the run
    Given a webhook receiver on loopback that never answers
    And a server that sends every run's terminal state to the receiver
    When a served run ends
    Then while the receiver holds the delivery, the run has ended: its verdict and its final event were recorded before the delivery arrived
    When the receiver answers at last
    Then the attempt is recorded delivered, and the run's verdict, end time and final event are as they were

  @SVC2-007
  Scenario: A webhook goes only where the network policy lets it
    Given a webhook receiver on loopback that redirects to a second receiver
    Then a server whose webhook is a loopback address does not start without webhook_allow_private_network
    When a server sends a run's terminal state to a name that resolves to loopback, without webhook_allow_private_network
    Then the delivery is recorded refused, and the receiver gets nothing
    When a server that allows webhooks on private networks sends a run's terminal state to that name
    Then the receiver gets it at the vetted address with the name as its Host, and answers with a redirect
    And the redirect is not followed: the second receiver gets nothing, and the attempt is recorded failed with 302

  @SVC2-008
  Scenario: A run names its own webhook within the operator's allowlist
    Given the fixture site and the article recipes
    And a webhook receiver on loopback
    And a server whose webhook allowlist holds the receiver's URL
    When a client starts "service-article" naming a webhook URL not on the allowlist
    Then the start is refused INVALID_ARGUMENT at options.webhook_url, and no run is listed
    When a client runs "service-article" naming a webhook URL on the allowlist
    Then the receiver gets that run's completed terminal state, signed with the server's secret
