Feature: A service other teams can build on
  A team calling Verity from another service retries a start whose reply it lost without starting
  a second run, whichever replica it reaches.

  @SVC2-001 @SVC2-002
  Scenario: A start retried after a lost reply gets the run the first one started
    Given the fixture site and the article recipes
    And a server
    When a client starts "service-article" with an idempotency key and the first reply is lost
    Then its retry answers with the run the first attempt started, the only run the server lists
    When the client runs "service-article" with Run and the same key
    Then the stream is that run's, from seq 1 to its final verdict
    When the client starts "service-approval" with the same key
    Then the start is refused ALREADY_EXISTS with reason IDEMPOTENCY_KEY_REUSED naming the first run, and no run is added
    And a key of 129 characters is refused INVALID_ARGUMENT at idempotency_key
    When the server restarts on its store and the client starts "service-article" with the same key again
    Then the answer is the first run, still the only one listed

  @SVC2-003
  Scenario Outline: The run store keeps a start's key for the retention and no longer
    Given an empty <store> run store for keyed starts
    When a run is recorded with a key
    Then a second run claiming the key within the retention is not recorded and learns the first run and its fingerprint
    And a run claiming the key once the first claim has expired is recorded and holds the key from then on

    Examples:
      | store      |
      | sqlite     |
      | postgresql |

  @SVC2-003
  Scenario: Two replicas answer a start retried across them with one run
    Given two busy replicas on one PostgreSQL store, each running at most one run
    When a client starts a run on the first replica with an idempotency key, loses the reply and retries on the second
    Then both answers name one run, queued, listed once on both replicas
    And the same key with another recipe is refused on the second replica naming that run
    When two clients start one request with a new key on both replicas at once
    Then both get the same run, and the store holds one more run
