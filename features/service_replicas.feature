Feature: Several verity serve replicas share one PostgreSQL run store
  Replicas given the same postgresql:// store serve any run from any of them: a started run is
  queued in the database and claimed by a replica with a free slot, watchers on any replica get its
  events from the shared tables, and StopRun or ConfirmAction travel to the replica running it.
  Each replica holds a lease; once a dead replica's lease expires another one interrupts its runs.

  @SERVICE-046 @SERVICE-047 @SERVICE-048 @SERVICE-049 @SERVICE-050 @CACHE-010
  Scenario: Three replicas share the runs; killing one interrupts its runs and the others keep serving
    Given the fixture site and the article recipes
    And three verity serve replicas on one PostgreSQL store, each running at most one run, with a 5 second lease
    When a client starts 3 runs of "replica-hang" on replica A
    Then each replica runs one of them
    When a client streams replica A's run from replica B and stops it from replica C
    Then the stream from replica B ends stopped with stop reason manual_stop, every event once in order
    When a client starts "service-approval" on replica B and approves its confirmation on replica C
    Then the run ends completed, as streamed from replica B, in the trace StartRun answered with
    When a client starts "agent-order-desk" on replica C and the scripted model places the order
    Then replica A ran it, verified, and learned its path into the action cache the replicas share
    When a client starts "replica-hang" on replica C, watches it on replica A, and replica A is killed with SIGKILL
    Then the run is interrupted once replica A's lease has expired
    And resuming the stream on replica B after the last seq it saw yields every other event exactly once, ending interrupted
    And replicas B and C still serve: their runs are listed running from either, and stop on request
    When a client starts "agent-order-desk" on replica B for another customer
    Then a replica other than A ran it verified from the path A learned, with no model call

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
