Feature: The run store on PostgreSQL answers as the SQLite one does
  `verity serve --store postgresql://user@host:port/database` keeps runs, their events and the
  artifact index in PostgreSQL instead of the embedded SQLite file. Its schema is versioned and
  migrated at start-up. One set of store tests judges both stores, so they keep the same promises:
  rows round-trip, listings order and page alike, a write that cannot be made is held and retried,
  and runs a killed server left in flight are closed by the next one.

  @SERVICE-036
  Scenario: A PostgreSQL URL given as the store keeps the server's runs in that database
    Given a PostgreSQL database
    When a server is started with that database's URL as its store
    And a run is opened and emits 3 events
    Then the database holds the run and its 3 events
    And no SQLite file was created

  @SERVICE-036
  Scenario Outline: A PostgreSQL store that cannot be reached is refused at start-up without showing the password
    Given a PostgreSQL URL with the password "hunter2-secret" <where> for a port nothing listens on
    When I start "verity serve" with that URL as the store <how>
    Then it exits with code 2 and a message naming the URL with its password hidden
    And the output never shows "hunter2-secret"

    Examples:
      | where                | how                 |
      | in its user part     | on the command line |
      | in its user part     | in the config file  |
      | as a query parameter | on the command line |

  @SERVICE-037
  Scenario: Migrations are applied once, at start-up, and recorded
    Given a PostgreSQL database
    When the PostgreSQL store is opened on it twice
    Then schema_migrations lists every migration once, applied by the first opening
    And the runs, events and artifacts tables exist

  @SERVICE-037
  Scenario: Four servers opening one fresh database at the same moment apply each migration once
    Given a PostgreSQL database
    When the PostgreSQL store is opened on it by 4 threads at the same moment
    Then every opening succeeded
    And schema_migrations lists every migration once

  @SERVICE-037
  Scenario: A database migrated by a newer Verity is refused
    Given a PostgreSQL database
    And its schema_migrations records version 999
    When the PostgreSQL store is opened on it
    Then opening fails with a message naming schema version 999 as newer than this Verity

  @SERVICE-038
  Scenario Outline: Runs, events and artifacts round-trip, and listings order and page alike
    Given an empty <store> run store
    When 5 runs are written, two of them created at the same nanosecond, with events and artifacts
    Then each run reads back field for field, its last seq following its newest event
    And its events read back in seq order from any seq, a repeated event stored once
    And listing runs is newest first with ties broken by run id, and paging 2 at a time returns each once
    And listing by status and by recipe returns only the matching runs
    And the artifact index lists the newest row of each artifact in seq order

    Examples:
      | store      |
      | sqlite     |
      | postgresql |

  @SERVICE-038
  Scenario Outline: Retention trims a run's oldest events and moves its earliest seq
    Given an empty <store> run store
    And a run with 10 stored events
    When its events before seq 7 are trimmed
    Then 6 events were deleted and events 7 to 10 remain
    And the run's earliest seq is 7

    Examples:
      | store      |
      | sqlite     |
      | postgresql |

  @SERVICE-038
  Scenario Outline: A NUL character in a run's summary never makes a batch the store refuses
    Given an empty <store> run store
    And a run with 1 stored events
    When the run is updated with the summary "before<NUL>after" and an event in one batch
    Then the run's summary reads back as "<summary>" and the event is stored

    Examples:
      | store      | summary                |
      | sqlite     | before\x00after        |
      | postgresql | before\ufffdafter      |

  @SERVICE-039
  Scenario Outline: While another session holds the store's lock, writes are held and retried, never dropped
    Given an empty <store> run store behind the write buffer, waiting 0.05 seconds for a lock
    And a buffered run with 1 committed event
    When another session holds the store's write lock
    And the run appends 20 events
    Then flushing fails with a StoreWriteError holding 20 events of the run
    When the other session releases the lock
    Then the writer commits the held events and the run has events 1 to 21 with no gap

    Examples:
      | store      |
      | sqlite     |
      | postgresql |

  @SERVICE-039
  Scenario: A PostgreSQL store whose connections are cut writes on new ones and loses no event
    Given an empty postgresql run store behind the write buffer, waiting 5.0 seconds for a lock
    And a buffered run with 1 committed event
    When the database server cuts every connection of the store
    And the run appends 20 events
    Then the writer commits the held events and the run has events 1 to 21 with no gap
    And the store now writes through a connection opened after the cut
    And the outage was reported once, naming the cut, and then that writing works again

  @SERVICE-040
  Scenario: A verity serve on PostgreSQL killed with SIGKILL loses nothing a client saw, and the next server interrupts its run
    Given a PostgreSQL database
    When a verity serve process on that database whose run emits events as fast as it can is killed with SIGKILL while a client watches, 3 times
    And verity serve is started again on that database
    Then every event a client saw is stored in PostgreSQL under the seq it had
    And each run ended stopped with stop reason interrupted, its seqs without a gap

  @SERVICE-041
  Scenario: An artifact recorded by one server on PostgreSQL is served by another after the first is gone
    Given a PostgreSQL database
    And a server on that database whose run recorded a screenshot and a report, and whose second run recorded the same screenshot
    When that server is stopped and its run directories are deleted
    And another server with run directories of its own is started on that database
    Then GetArtifact on the other server returns every listed artifact's bytes, matching its sha256 and size
    And the database keeps one copy of each content: 2 blobs for 3 artifact rows

  @SERVICE-041
  Scenario: An artifact whose file does not hold the recorded bytes is not copied, and another server answers DATA_LOSS
    Given a PostgreSQL database
    And a server on that database whose run recorded a screenshot whose file holds other bytes than recorded
    When that server is stopped and its run directories are deleted
    And another server with run directories of its own is started on that database
    Then GetArtifact of that screenshot on the other server fails with DATA_LOSS ARTIFACT_MISSING
    And the database keeps no blob
