Feature: An agent step without a key or with a failing model ends with what to do
  A plan with agent steps and no Gemini API key fails at preflight, before any page opens, naming
  the variables to set; a model that answers with an error ends its agent step with that error's
  code. The model here is the real google-genai client talking to a scripted Gemini server on
  loopback.

  Background:
    Given a Gemini server on loopback and an API key in the environment

  @EXEC-024
  Scenario: Without an API key a plan with agent steps fails at preflight
    Given the environment holds no Gemini API key
    When I run "agent-quote" against the demo site
    Then the run ends "error" with stop reason "invalid_input"
    And the verdict says to set "GEMINI_API_KEY" or "GOOGLE_API_KEY"
    And no state ran after "intent.preflight"
    And the model was asked 0 times

  @EXEC-024
  Scenario: A model error ends the agent step with its code
    Given the model will first fail with HTTP 503
    When I run "agent-quote" against the demo site
    Then the run ends "error" with stop reason "execute_error"
    And the agent step "find" failed with the model error "server_error"
    And a structured error output reported "server_error"
