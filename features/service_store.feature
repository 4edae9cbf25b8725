Feature: Runs are durable and can be looked up
  The server keeps runs, their events and the artifact index in its store (SQLite, or PostgreSQL),
  so a restart or a crash loses nothing that was recorded, and other services can find runs again
  later. The lookups run against both stores.

  @SERVICE-006
  Scenario: Runs a crashed server left in flight are interrupted by the next server, events intact
    Given a server
    And a served run that has emitted a status change, a step with agent notes and an artifact
    When the store is copied as the crashed server left it
    And a server is started on the copied store
    Then the run ended stopped with stop reason interrupted
    And streaming it replays the same events, then the interruption

  @SERVICE-017
  Scenario Outline: ListRuns filters by status and recipe and pages newest first
    Given a server on a <store> store
    And 5 ended runs of "alpha" and "beta" with different outcomes
    Then listing runs with status completed returns only the completed ones, newest first
    And listing runs of recipe "beta" returns only its runs
    And paging through all runs 2 at a time returns every run once, newest first
    And a made-up page token is INVALID_ARGUMENT on field "page_token"

    Examples:
      | store      |
      | sqlite     |
      | postgresql |

  @SERVICE-017
  Scenario Outline: GetRun shows the artifact index and unknown runs are NOT_FOUND
    Given a server on a <store> store
    And a served run that has emitted a status change, a step with agent notes and an artifact
    Then GetRun lists the artifact with its path, size and seq
    And GetRun of "run-does-not-exist" fails with NOT_FOUND naming the run

    Examples:
      | store      |
      | sqlite     |
      | postgresql |

  @SERVICE-021
  Scenario: While another process locks the store, no event is lost or shown before it is stored
    Given a server whose store gives up waiting for a lock after 0.05 seconds
    And a served run watched by a client
    When another process holds the store's write lock
    And the run emits 20 events
    Then listing runs fails with UNAVAILABLE STORE_UNAVAILABLE
    And the watcher has received none of those 20 events while the store is locked
    And the server log reports the outage once
    When the other process releases the lock
    Then the watcher receives those 20 events
    When the run emits its final verdict
    Then streaming the run from the store replays all 23 events exactly once
    And the server log reports that writing works again

  @SERVICE-021
  Scenario: Events that still cannot be written at shutdown are reported with their count
    Given a server whose store gives up waiting for a lock after 0.05 seconds
    And a served run watched by a client
    When another process holds the store's write lock
    And the run emits 5 events
    And the server shuts down
    Then the shutdown fails naming 7 lost events of the run
