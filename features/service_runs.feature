Feature: Running recipes through the gRPC API
  Other services start Verity runs over gRPC, watch them, answer their confirmation requests and
  stop them. These runs are real: headless Chromium against the loopback fixture site.

  Background:
    Given the fixture site and the article recipes

  @SERVICE-001 @SERVICE-013
  Scenario: A run started with Run streams to a verified verdict, every event carrying the run's trace id
    Given a server with an in-memory span exporter
    When a client runs "service-article" with Run
    Then the events end with a completed, verified final verdict
    And every event carries the trace id of the run's root span
    And no span attribute holds the run's inputs

  @SERVICE-015
  Scenario: Approving a confirmation lets the run continue
    Given a server
    When a client starts "service-approval" and waits for its confirmation request
    Then GetRun shows the run waiting_for_user_confirmation with that request pending
    When the client approves the request
    Then the run ends completed with stop reason completed

  @SERVICE-015
  Scenario: Denying a confirmation ends the run with approval_denied
    Given a server
    When a client starts "service-approval" and waits for its confirmation request
    And the client denies the request because "not today"
    Then the run ends error with stop reason approval_denied

  @SERVICE-015
  Scenario: Confirming a request that is not pending is FAILED_PRECONDITION
    Given a server
    When a client starts "service-approval" and waits for its confirmation request
    Then confirming request "no-such-request" fails with FAILED_PRECONDITION
    When the client approves the request
    Then confirming the same request again fails with FAILED_PRECONDITION

  @SERVICE-022
  Scenario: A run whose timeout elapses ends with stop reason timeout, streamed to the client
    Given a server
    When a client runs "service-approval" with Run and a 2 second timeout
    Then the stream ends with a final verdict error with stop reason timeout no sooner than 2 seconds
    And GetRun reports the run error with stop reason timeout

  @SERVICE-016 @SERVICE-003
  Scenario: StopRun stops a waiting run with manual_stop and every watcher sees it
    Given a server
    When a client starts "service-approval" and waits for its confirmation request
    And a second client watches the run
    And the client stops the run
    Then StopRun answered with the run stopped with stop reason manual_stop
    And both watchers saw the final verdict manual_stop

  @SERVICE-006
  Scenario: A server killed mid-run marks the run interrupted on restart and keeps its events
    Given a verity serve process
    When a client starts "service-approval" and waits for its confirmation request
    And the server process is killed
    And verity serve is started again on the same store
    Then streaming the run from the start replays its events and ends with stop reason interrupted
    And GetRun shows the run stopped with stop reason interrupted

  @SERVICE-011
  Scenario: SIGTERM reports NOT_SERVING, refuses new runs, interrupts the waiting run and exits cleanly
    Given a verity serve process with a 3 second grace period
    When a client starts "service-approval" and waits for its confirmation request
    And a health watcher is watching the server
    And the server process receives SIGTERM
    Then the health watcher sees NOT_SERVING
    And starting "service-article" fails with UNAVAILABLE
    And the run ends stopped with stop reason interrupted
    And the server process exits with code 0

  @SERVICE-018
  Scenario: verity client runs a recipe and exits with the run's exit code
    Given a verity serve process
    When I run "verity client run --recipe-name service-article" with the site input
    Then the command exits with code 0 and printed the final verdict
    And "verity client list --status completed" lists the run
    And "verity client get" shows the run completed

  @SERVICE-003
  Scenario: Cancelling a stream does not stop the run
    Given a server
    When a client starts "service-approval" and waits for its confirmation request
    And a second client watches the run and cancels its stream
    Then GetRun shows the run waiting_for_user_confirmation with that request pending
    When the client approves the request
    Then the run ends completed with stop reason completed

  @SERVICE-011
  Scenario: A run still in flight when the grace period ends is interrupted, in the store and in its directory
    Given a server
    When a client starts "service-read-approval" and waits for its confirmation request
    And the server shuts down with a grace period of 0.2 seconds
    And a server is started again on the same store
    Then streaming the run from the start replays its events and ends with stop reason interrupted
    And the run's verdict.json and events.jsonl end with that interruption
