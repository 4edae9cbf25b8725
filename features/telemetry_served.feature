Feature: Runs through verity serve are traced end to end
  A client that sends W3C traceparent metadata finds the run it started in its own trace; the
  server exports the run's spans like `verity run` does and writes trace.jsonl in the run's
  directory.

  @TELEMETRY-006
  Scenario: A run started by a client that sent traceparent is in the client's trace
    Given a loopback OTLP receiver speaking grpc
    And "verity serve" exporting to the receiver
    When a client inside its own span starts the demo recipe for "silver" with traceparent and follows it to the end
    Then the run completed and StartRun answered the client's trace id
    And every event of the run carries the client's trace id
    And the receiver got the server's StartRun span as a child of the client's span, and the run's invoke_agent span as a child of that
    And the receiver got the run's state and tool spans in the client's trace
    And the run directory's trace.jsonl holds the run's spans
