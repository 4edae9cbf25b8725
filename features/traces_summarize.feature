Feature: Summarizing runs' traces
  `verity trace summarize` turns OpenTelemetry traces of many runs into seed 004's reliability
  figures: how many runs were done and verified, how often a run claimed a success it should not
  have, how many replans and retries a run takes, why runs stop and what blocks them, how long
  each kind of step takes.

  @TRACE-001
  Scenario: The fixture files are what the builder makes of opentelemetry-proto messages
    Given the fixture traces of six runs: two run directories and a Collector file
    Then each file is the builder's output, one ExportTraceServiceRequest per line with hex ids

  @TRACE-001
  Scenario: The fixed runs give the hand-computed figures as JSON
    Given the fixture traces of six runs: two run directories and a Collector file
    When I summarize the run directories and the Collector file with --json
    Then the command exits 0
    And it found 6 runs, 3 of them done and verified
    And of the 5 labelled runs, 1 of 2 expected to fail claimed success, 1 of 3 expected to complete did not, and 3 of 5 agree
    And the per-run figures are the hand-computed nearest-rank ones
    And the stop reasons and blocker kinds are the hand-counted histograms
    And the step latencies by kind are the hand-computed nearest-rank ones

  @TRACE-001
  Scenario: The default output is a table of the same figures
    Given the fixture traces of six runs: two run directories and a Collector file
    When I summarize the run directories and the Collector file
    Then the command exits 0
    And the table reads "done and verified: 3 of 6 (50.0%)"
    And the table reads "  false successes: 1 of 2 (50.0%) of the runs expected not to complete"
    And the table has the row "replans" with mean 1, P50 0, P95 3 and max 3
    And the table has the row "navigate" with 6 states, P50 90, P95 200 and max 200

  @REPAIR-009
  Scenario: The release gate fails when the runs miss a threshold, and names each one
    Given the fixture traces of six runs: two run directories and a Collector file
    When I summarize the run directories and the Collector file with --json and the gate "--min-done-verified 0.9 --max-misjudged 0.2 --max-p95-retries 2"
    Then the command exits 3
    And the gate missed "done and verified 0.5 is below --min-done-verified 0.9", "misjudged 0.4 is above --max-misjudged 0.2" and "P95 action retries 3 is above --max-p95-retries 2"

  @REPAIR-009
  Scenario: The release gate passes runs that meet every threshold
    Given the fixture traces of six runs: two run directories and a Collector file
    When I summarize the run directories and the Collector file with --json and the gate "--min-done-verified 0.5 --max-misjudged 0.4 --max-p95-retries 3"
    Then the command exits 0
    And the gate passed

  @TRACE-002
  Scenario: A broken line, a span read twice, a run that never ended and a caller's spans
    Given the fixture traces of six runs: two run directories and a Collector file
    When I summarize the run directories and the Collector file with --json
    Then the command exits 0
    And the problem "collector.jsonl:3: not an OTLP/JSON trace line" is on stderr and in the JSON
    And run r1, read from its run directory and from the Collector file, counts once
    And the span of the run that never ended is outside any run and in no step latency
    And the served run's client and server spans are in no run

  @TRACE-002
  Scenario: Nothing to summarize
    When I summarize a directory with no trace file and a path that does not exist
    Then the command exits 1
    And stderr names the missing path and says no run was found

  @TRACE-003
  Scenario Outline: Nearest-rank percentiles
    Then the P<percent> of <values> is <result>

    Examples:
      | percent | values                                                         | result |
      | 50      | 1, 2, 3, 4                                                     | 2      |
      | 95      | 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 | 19     |
      | 95      | 0, 0, 0, 1, 2, 3                                               | 3      |
      | 50      | 7                                                              | 7      |
      | 95      | 7                                                              | 7      |
      | 50      | none                                                           | none   |

  @TRACE-005
  Scenario: Receiving the runs over OTLP/gRPC
    Given the fixture traces of six runs: two run directories and a Collector file
    When "verity trace summarize --listen 127.0.0.1:0 --runs 6 --json" receives every fixture request over gRPC
    Then the command exits 0
    And it found 6 runs, 3 of them done and verified
    And the per-run figures are the hand-computed nearest-rank ones
    And the step latencies by kind are the hand-computed nearest-rank ones

  @TRACE-005
  Scenario: Listening ends when the time is up
    When "verity trace summarize --listen 127.0.0.1:0 --seconds 1" receives nothing
    Then the command exits 1
    And stderr names the address it listened on and says no run was found

  @TRACE-004
  Scenario: A real run's trace.jsonl, and the same run received over OTLP
    When I run "verity demo" exporting OTLP to "verity trace summarize --listen" and summarize its trace.jsonl
    Then it found 1 run, done and verified, with 1 replan
    And there is one step latency per executed state, by state kind
    And the summary received over OTLP is the summary of its trace.jsonl
