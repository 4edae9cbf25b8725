Feature: verity run writes an agent run's trace, and the model's key appears nowhere
  `verity run` writes the run's spans to trace.jsonl as one tree, with each agent turn a span
  under its state's span; the Gemini API key the run used is in none of its events, files, trace
  or command output. The model here is the real google-genai client talking to a scripted Gemini
  server on loopback.

  Background:
    Given a Gemini server on loopback and an API key in the environment

  @EXEC-025 @EXEC-026
  Scenario: verity run writes a trace of an agent run, and the key appears nowhere
    Given the model will first take a snapshot
    And the model will then say "The live quote is the third result." and click the "Gold spot quote" link by its ref
    And the model will then close saying "Opened the gold quote"
    When I run "verity run" on "agent-quote" against the demo site with the key in its environment
    Then the command exits 0 and names its trace file
    And the trace is one tree of spans rooted at "invoke_agent agent-quote" with the trace id of the events
    And the trace has 3 "verity.agent.turn" spans under the span of state "find"
    And the API key appears in no event, run file, trace or command output
