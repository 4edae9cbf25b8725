Feature: A server keeps its runs on PostgreSQL when its store is a postgresql:// URL
  `verity serve --store postgresql://user@host:port/database` keeps runs, their events and the
  artifact index in PostgreSQL instead of the embedded SQLite file. A database it cannot reach is
  refused at start-up without showing the URL's password, and runs a killed server left in flight
  are closed by the next one. The store's schema, the promises both stores keep, held writes and
  artifact bytes have features of their own (service_store_*.feature).

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

  @SERVICE-040
  Scenario: A verity serve on PostgreSQL killed with SIGKILL loses nothing a client saw, and the next server interrupts its run
    Given a PostgreSQL database
    When a verity serve process on that database whose run emits events as fast as it can is killed with SIGKILL while a client watches, 3 times
    And verity serve is started again on that database
    Then every event a client saw is stored in PostgreSQL under the seq it had
    And each run ended stopped with stop reason interrupted, its seqs without a gap
