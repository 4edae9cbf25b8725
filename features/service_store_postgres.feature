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
    Given a PostgreSQL URL with the password "hunter2-secret" for a port nothing listens on
    When I start "verity serve" with that URL as the store <how>
    Then it exits with code 2 and a message naming the URL with its password hidden
    And the output never shows "hunter2-secret"

    Examples:
      | how                 |
      | on the command line |
      | in the config file  |

  @SERVICE-037
  Scenario: Migrations are applied once, at start-up, and recorded
    Given a PostgreSQL database
    When the PostgreSQL store is opened on it twice
    Then schema_migrations lists every migration once, applied by the first opening
    And the runs, events and artifacts tables exist

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

  @SERVICE-040
  Scenario: A verity serve on PostgreSQL killed with SIGKILL loses nothing a client saw, and the next server interrupts its run
    Given a PostgreSQL database
    When a verity serve process on that database whose run emits events as fast as it can is killed with SIGKILL while a client watches, 3 times
    And verity serve is started again on that database
    Then every event a client saw is stored in PostgreSQL under the seq it had
    And each run ended stopped with stop reason interrupted, its seqs without a gap
