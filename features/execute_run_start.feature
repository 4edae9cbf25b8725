Feature: Starting a run from the command line
  `verity run` starts its Chromium first, so the browser comes up while the recipe and the
  executor load, and loads nothing heavy that the run may not need (the LLM client, gRPC, the
  readable-text extractor) before the run asks for it. A browser no run takes leaves nothing
  behind.

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
  Scenario: The run command's code imports neither the LLM client, gRPC nor the readable-text extractor
    When a fresh interpreter imports what "verity run" loads before its run starts
    Then none of "google.genai", "grpc", "trafilatura" is among its modules
    And "runtime.execute.run" is among its modules
