Feature: Starting a run from the command line
  `verity run` starts its Chromium first, so the browser comes up while the recipe and the
  executor load, reserves its first session's context meanwhile, and loads nothing heavy that
  the run may not need (the LLM client, gRPC, the readable-text extractor, which works in a
  process of its own) before the run asks for it; a plan without an agent step never loads the
  model's code, the agent loop or the store, and the trace is written without protobuf. A
  browser no run takes leaves nothing behind.

  @EXEC-060
  Scenario: A completed run uses the one Chromium the command started
    When I run "verity run" on the demo recipe with debug logging and a temporary directory of its own
    Then the command exits 0
    And the command started exactly one Chromium
    And no Chromium profile is left in the temporary directory

  @EXEC-060
  Scenario: An invalid recipe kills the Chromium the command started and removes its profile
    When I run "verity run" on the broken recipe with debug logging and a temporary directory of its own
    Then the command exits 3
    And the command started exactly one Chromium
    And that Chromium is no longer running
    And no Chromium profile is left in the temporary directory

  @EXEC-061
  Scenario: The run command's code imports neither the LLM client, gRPC, the readable-text extractor, protobuf nor the store
    When a fresh interpreter imports what "verity run" loads before its run starts
    Then none of "google.genai", "grpc", "trafilatura", "google.protobuf", "runtime.store", "sqlite3" is among its modules
    And no module inside "runtime.llm" is among its modules
    And "runtime.execute.run" is among its modules

  @EXEC-075 @EXEC-100
  Scenario: The run's session takes the context reserved while the executor loaded, its fence holds, and a plan without an agent step loads no model, agent or store code
    Given a loopback page that shows a quote and asks for an image from a host the recipe does not allow
    When I run "verity run" on a recipe for that page with debug logging and a temporary directory of its own
    Then the command exits 0
    And the debug log says the run's session took the context reserved at start
    And verdict.json counts 1 blocked request, to the host the recipe does not allow
    And the command started exactly one Chromium
    And no Chromium profile is left in the temporary directory
    And none of "runtime.execute.agent", "runtime.execute.states.agent", "runtime.store", "sqlite3", "google.protobuf", "opentelemetry.proto" is among the modules the command imported
    And no module inside "runtime.llm" is among the modules the command imported
    And "runtime.execute.states.extract" is among the modules the command imported

  @EXEC-076
  Scenario: A page's readable text comes from a worker process, which is replaced when it dies
    When a fresh interpreter with an API key in its environment reads an article page's readable text, kills the worker, and reads it again
    Then both readings are trafilatura's own reading of that page
    And trafilatura is not among that interpreter's modules
    And the second reading came from another worker process
    And the worker's environment held no API key

  @EXEC-076
  Scenario: A worker started in a directory that holds a package named runtime still runs Verity's code
    Given a directory holding a package named "runtime" that leaves a mark when it is imported
    When a fresh interpreter started in that directory reads an article page's readable text
    Then the reading is trafilatura's own reading of that page
    And the directory's package left no mark
