Feature: Agent steps retry a rate-limited model, and the model reads filled-in instructions
  An agent step's model calls go through the gateway's retries; the step's opening prompt is the
  recipe's task and conditions with their placeholders filled, and what the model extracts is the
  run's data. The model is the real google-genai client against a scripted Gemini server.

  @LLM-010
  Scenario: An agent step whose model is rate limited once retries and completes
    Given a Gemini server on loopback that allows 4 attempts per model call
    And the model will first be rate limited
    And the model will then look, click the "Gold spot quote" result by its ref and close
    When I run "agent-quote" against the demo site with its spans recorded
    Then the run ends "completed" with stop reason "completed"
    And one tool_used event of phase "retry" for "llm.chat" reported "rate_limited"
    And the first chat span has a "verity.llm_retry" event with HTTP status 429
    And the run's root span counts 1 retry

  @LLM-011
  Scenario: The opening prompt fills placeholders, describes a value check, and extracted values reach the output
    Given a Gemini server on loopback that allows 1 attempts per model call
    And the model will type "Ada Lovelace" into "#name", submit, read "#result" as "typed_name" and close
    When I run "agent-fill" against the fixture site with its spans recorded
    Then the run ends "completed" with stop reason "completed"
    And the model's opening prompt says "Type Ada Lovelace into the Full name field" and "has the value 'Ada Lovelace'" with no "{username}"
    And the output holds typed_name "Ordered: Ada Lovelace / "
    And the step "check" that reads "{steps.fill.typed_name}" verified
