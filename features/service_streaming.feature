Feature: Watching runs over gRPC
  Other services watch Verity runs as streams of typed events. A watcher can join late, drop and
  come back without losing or repeating an event, and no watcher ever slows a run down.

  @SERVICE-001
  Scenario: A watcher that joins late gets the stored events, then the live ones, then the stream ends
    Given a served run that has emitted 20 events
    When a client streams the run from the start
    And the client has received 20 events
    And the run emits 30 more events and its final verdict
    Then the client receives seq 1 to 52 in order exactly once
    And the stream ended after the final verdict

  @SERVICE-001
  Scenario: A watcher can ask only for the events after a seq
    Given a served run that has emitted 20 events
    When a client streams the run after seq 15
    And the run emits its final verdict
    Then the client receives seq 16 to 22 in order exactly once

  @SERVICE-001
  Scenario: An ended run can be streamed again from the store
    Given a served run that has emitted 20 events
    And the run emits its final verdict
    When a client streams the run from the start
    Then the client receives seq 1 to 22 in order exactly once

  @SERVICE-002
  Scenario: A dropped connection is resumed without losing or repeating events
    Given a served run watched through a proxy that can cut connections
    When the run emits 50 events
    And the proxy cuts every connection once the client has received 50 events
    And the run emits 50 more events while the client is cut off
    And the proxy cuts every connection once the client has received 100 events
    And the run emits 100 more events and its final verdict
    Then the client receives seq 1 to 202 in order exactly once
    And the client connected at least 3 times

  @SERVICE-004
  Scenario: A subscriber that falls behind is cut off and told where to resume
    Given a server whose subscribers may fall 64 events behind
    And a served run with a watcher that does not read and a watcher that keeps up
    When the run emits 600 events of 4 KiB in small bursts and its final verdict
    Then the run's 602 events were all stored and the run ended while the slow watcher had read nothing
    And the watcher that keeps up received seq 1 to 602 in order exactly once
    And the slow watcher's stream fails with ABORTED SUBSCRIBER_LAGGING after its last received seq
    And resuming after that seq delivers the rest of the run exactly once

  @SERVICE-005
  Scenario: Many watchers of one run each receive the whole run
    Given a served run with 20 watchers
    When the run emits 300 events and its final verdict
    Then every watcher receives seq 1 to 302 in order exactly once

  @SERVICE-005
  Scenario: Concurrent runs keep their own streams
    Given 3 served runs, each with a watcher
    When the runs emit 100 events each, interleaved, and their final verdicts
    Then each watcher receives only its run's events, seq 1 to 102 in order

  @SERVICE-007
  Scenario: Streaming from before the trimmed history is OUT_OF_RANGE with the earliest seq
    Given a server that keeps the newest 10 events of an ended run
    And a served run that has emitted 30 events
    And the run emits its final verdict
    When a client streams the run from the start
    Then the stream fails with OUT_OF_RANGE HISTORY_TRIMMED and earliest seq 23
    And streaming after seq 22 delivers seq 23 to 32

  @SERVICE-025
  Scenario: Streaming after the last seq of an ended run is OUT_OF_RANGE with the last seq, never a silent empty stream
    Given a served run that has emitted 8 events
    And the run emits its final verdict
    When a client streams the run after seq 19
    Then the stream fails with OUT_OF_RANGE BEYOND_LAST_SEQ and last seq 10
    And streaming after seq 10 delivers nothing and ends

  @SERVICE-025
  Scenario: Streaming a live run after a seq it has not reached waits for it, and is OUT_OF_RANGE if the run ends first
    Given a served run that has emitted 5 events
    When a client streams the run after seq 7
    And a second client streams the run after seq 40
    And the run emits 5 events
    Then the client has received seq 8 to 10
    When the run emits its final verdict
    Then the client receives seq 8 to 12 in order exactly once
    And the second client's stream fails with OUT_OF_RANGE BEYOND_LAST_SEQ and last seq 12
