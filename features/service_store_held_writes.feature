Feature: A run store write that cannot be made is held and retried, never dropped
  The server writes through a buffer in front of its run store. While another session holds the
  store's lock, or the database cuts the store's connections, the buffer holds what it was given,
  says so once, and commits every event once the store answers again, with no gap.

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
