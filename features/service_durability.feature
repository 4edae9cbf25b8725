Feature: Nothing a watcher saw is ever lost or renumbered
  A watcher receives an event only once the store has committed it, so a server killed at any
  moment loses nothing anyone saw, and the next server numbers on past it. Runs left in flight are
  closed in the store and in their run directories.

  # Six cycles: both kinds of run (with and without a run directory) killed early, mid-burst and
  # deep. tools/sweep_kill9.py runs the same cycles and checks many more times (BENCHMARKS.md).
  @SERVICE-024 @SERVICE-026
  Scenario: Killing the server while events flow fast, again and again, loses and renumbers nothing a client saw
    When a verity serve process whose run emits events as fast as it can is killed with SIGKILL while a client watches, 6 times, each on the store its predecessor left
    And verity serve is started again on that store
    Then every event a client saw is stored under the seq it had, with the content the client saw
    And every stored event of those runs has the content its seq was emitted with
    And resuming each run after the last seq its client saw yields the rest of the run, ending interrupted
    And each run's directory has an interrupted verdict.json and an events.jsonl with every stored event once, in order

  @SERVICE-026
  Scenario: Events the run directory holds beyond the store are recovered, and a torn last line is cut off
    Given a server whose store gives up waiting for a lock after 0.05 seconds
    And a served run that writes its run directory, with 3 stored events
    When another process holds the store's write lock
    And the run emits 4 events
    And the store is copied as the killed server left it, with a torn line at the end of events.jsonl
    And a server is started on the copied store and the same run directories
    Then the run has 9 stored events: its 7, then the interruption
    And the run's events.jsonl holds the same 9 events, each once
    And the run's verdict.json says stopped with stop reason interrupted
