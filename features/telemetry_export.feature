Feature: Runs are traced through the OpenTelemetry SDK, in the GenAI conventions
  `verity run` sends its spans wherever the standard OTEL_* variables say and always writes them
  to the run directory's trace.jsonl as OTLP/JSON. A loopback OTLP receiver stands in for a
  Collector: what it gets is what a Collector would get.

  @TELEMETRY-001 @TELEMETRY-002
  Scenario Outline: verity run exports its spans over OTLP <protocol> and writes the same spans to trace.jsonl
    Given a loopback OTLP receiver speaking <protocol>
    When I run "verity run" on the demo recipe for "silver" exporting to the receiver as service "verity-ci" with "deployment.environment=ci"
    Then the command exits 0
    And the receiver got the run's invoke_agent span and one state span per executed state, in the trace of the run's events
    And every received span has the resource service.name "verity-ci", deployment.environment "ci" and the scope "verity"
    And every line of trace.jsonl parses as an OTLP ExportTraceServiceRequest with hex ids and span kinds
    And trace.jsonl holds exactly the spans the receiver got

    Examples:
      | protocol      |
      | grpc          |
      | http/protobuf |

  @TELEMETRY-001
  Scenario: An exporter Verity cannot use is refused before the run starts
    When I run "verity run" on the demo recipe for "silver" with OTEL_TRACES_EXPORTER "zipkin"
    Then the command exits 3 naming "OTEL_TRACES_EXPORTER" and "zipkin"
    And no run directory was written

  @TELEMETRY-003 @TELEMETRY-004 @TELEMETRY-005
  Scenario: A recovered run's trace has its states, tool calls, replan and verification, and no input value
    Given a loopback OTLP receiver speaking grpc
    When I run "verity run" on the demo recipe for "silver" exporting to the receiver as service "verity-ci" with "deployment.environment=ci"
    Then the command exits 0
    And the root span is "invoke_agent demo-quote" with gen_ai.operation.name "invoke_agent", gen_ai.agent.name "demo-quote" and verity.stop_reason "completed"
    And the root span counts 1 replan, 0 retries and its executed states
    And each driver action of the run is an "execute_tool" span with its tool name and action id as gen_ai.tool.call.id
    And the replan state's span has a "verity.replan" event for attempt 1 after "page_not_found"
    And the verify state's span has a "verity.verification" event that verified
    And the input value "silver" is in the run's events but in no span, file or export

  @TELEMETRY-004
  Scenario: A failed verification is an ERROR span with a guardrail event
    Given a loopback OTLP receiver speaking grpc
    When I run "verity run" on "verify-missing-text" against the quote site exporting to the receiver
    Then the command exits 10
    And the root span has status ERROR "verification_failed"
    And the verify state's span has status ERROR and a "verity.guardrail_tripped" event from guard "verify"

  @TELEMETRY-005
  Scenario: With content capture on, spans carry the replan queries
    Given a loopback OTLP receiver speaking grpc
    And content capture is switched on
    When I run "verity run" on the demo recipe for "silver" exporting to the receiver as service "verity-ci" with "deployment.environment=ci"
    Then the command exits 0
    And the replan state's "verity.replan" event names the query with "silver"

  @TELEMETRY-003 @TELEMETRY-005
  Scenario: An agent run has a chat span per model call with its usage, and the key is nowhere
    Given a loopback OTLP receiver speaking grpc
    And a Gemini server on loopback whose model looks, clicks the "Gold spot quote" result by its ref and closes
    When I run "verity run" on "agent-quote" against the demo site with the model, exporting to the receiver
    Then the command exits 0
    And each of the 3 agent turns holds a "chat gemini-fixture-flash" span and an "execute_tool" span for the tool the model called
    And every chat span is a client span with gen_ai.provider.name "gcp.gemini", gen_ai.request.model "gemini-fixture-flash", 11 input and 7 output tokens
    And the root span sums 33 input and 21 output tokens
    And the API key is in neither trace.jsonl nor the export, and no span holds the model's task
