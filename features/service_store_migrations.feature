Feature: PostgreSQL keeps the versioned schema of its run store
  The PostgreSQL store's schema is versioned: on opening, every migration the database lacks is
  applied once and recorded in schema_migrations, however many servers open a fresh database at
  the same moment, and a database a newer Verity migrated is refused.

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
