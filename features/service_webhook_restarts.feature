Feature: Webhook deliveries outlive their server
  A delivery is kept in the run store from its run's start to its end, so a server that stops (or
  is killed) before the receiver has it leaves it to the next server on the store, which makes it
  with the same webhook id, counting the attempts already made.

  @SVC2-010 @SVC2-011
  Scenario Outline: A delivery its server did not finish is made by the next server on the store, once
    Given a webhook receiver on loopback that answers 500, then holds its answer
    And a server on a <store> store that sends every run's terminal state to the receiver, in at most 3 attempts
    When a served run ends
    And the receiver holds the second attempt while the server stops
    And a second server starts on the same store
    Then the receiver gets the delivery a third time, from the second server: the same webhook id and body, signed afresh
    And the run records attempt 1 retrying, attempt 2 abandoned, then attempt 3 delivered by the second server
    And the store no longer keeps the delivery or its URL

    Examples:
      | store      |
      | sqlite     |
      | postgresql |

  @SVC2-010
  Scenario: A run interrupted as its server stops is delivered by the next server
    Given a webhook receiver on loopback
    And a server that sends every run's terminal state to the receiver's URL with a token in its query
    When a served run is in flight as the server stops
    Then the receiver has got nothing, and the store keeps the delivery with its whole URL and no attempt made
    When a second server starts on the same store
    Then the receiver gets the run's interrupted terminal state from the second server, as attempt 1, recorded without the token
    And the store no longer keeps the delivery or its URL

  @SVC2-011
  Scenario Outline: A delivery is leased to one server at a time
    Given an empty <store> run store with a delivery expected for an ended run
    Then the run's server claims it and another server cannot until the lease expires
    And once it has expired the other server takes it over and the first one's progress is refused
    And a released lease is taken over at once

    Examples:
      | store      |
      | sqlite     |
      | postgresql |
