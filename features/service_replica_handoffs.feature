Feature: A replica's runs are whole when another replica streams, closes or queues them
  Two servers in one process share a PostgreSQL store, as replicas on separate machines would. A
  run hosted on one streams from the other with every event once across the catch-up seam; a
  replica that drains or is taken for dead leaves its runs interrupted, and cannot reopen what the
  other closed; a run started while both are full waits queued in the database.

  @SERVICE-051
  Scenario: A run hosted on one replica streams from another with every event exactly once across the catch-up seam
    Given two in-process servers on one PostgreSQL store
    When a run on the first server emits 300 events in paced bursts while 3 clients of the second server join at different moments
    Then every client of the second server received every event of the run once, in seq order, ending with its final verdict

  @SERVICE-052
  Scenario: A replica shut down gracefully drains its runs and leaves the replicas; another serves what it ran
    Given two in-process servers on one PostgreSQL store
    When the first server shuts down gracefully with a run in flight
    Then the run ends interrupted and the first server has left the replicas
    And the second server serves the ended run

  @SERVICE-053
  Scenario: A replica taken for dead cannot reopen what the others closed
    Given two in-process servers on one PostgreSQL store
    When a run on the first server is running and the first server's lease row disappears, as when its lease expired
    Then the run is closed as interrupted, streamed from the second server with one final verdict and no gap
    And an update of the ended run written later by the first server leaves its stored verdict as it was

  @SERVICE-046 @SERVICE-048
  Scenario: A run started while every replica is full waits queued, and stopping it ends it unstarted
    Given two in-process servers on one PostgreSQL store, each running at most one run, both busy
    When a client starts a run on the first server
    Then the run is listed created on both servers with the trace id StartRun answered, and no replica has claimed it
    And confirming anything for it is refused as not pending, since it is queued
    When a client stops the run on the second server
    Then the run is stopped with stop reason manual_stop, its stream a status change and a final verdict
