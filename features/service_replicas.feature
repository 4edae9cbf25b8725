Feature: Several verity serve replicas share one PostgreSQL run store
  Replicas given the same postgresql:// store serve any run from any of them: a started run is
  queued in the database and claimed by a replica with a free slot, watchers on any replica get its
  events from the shared tables, and StopRun or ConfirmAction travel to the replica running it.
  Each replica holds a lease; once a dead replica's lease expires another one interrupts its runs.
  Two replicas in one process show the seams between them closely (service_replica_handoffs.feature).

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
