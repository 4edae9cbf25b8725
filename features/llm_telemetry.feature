Feature: The gateway's model calls are chat spans, and it honours google-genai's base URL
  With telemetry, every model call is a `chat {model}` client span in the GenAI conventions; a
  retry is an event on it. Content is recorded only when content capture is switched on.

  Background:
    Given a Gemini server on loopback and a traced gateway

  @LLM-009
  Scenario: A model call is a chat span with the model, server and usage, and no content
    Given Gemini will stream "Looking", " now"
    When I ask "What is on the secret-page?"
    Then the chat span "chat gemini-fixture-flash" is a client span with gen_ai.provider.name "gcp.gemini", 11 input and 7 output tokens and finish reason "STOP"
    And no chat span attribute holds "secret-page", "Looking" or the API key

  @LLM-009
  Scenario: With content capture on, the chat span holds the messages but never the key
    Given content capture is switched on
    And Gemini will stream "Looking", " now"
    When I ask "What is on the secret-page?"
    Then the chat span's input messages hold "secret-page" and its output messages hold "Looking now"
    And no chat span attribute holds the API key

  @LLM-009 @LLM-005
  Scenario: A retried call has a retry event and reports the retry
    Given the gateway makes at most 3 attempts
    And Gemini will fail with HTTP 429
    And Gemini will stream "ok"
    When I ask "hello"
    Then the chat span has 1 "verity.llm_retry" event with HTTP status 429 and verity.retries 1
    And the retry was reported as attempt 2 of 3 after HTTP 429

  @LLM-009
  Scenario: A failed call is a chat span with status ERROR and its error type
    Given Gemini will fail with HTTP 404
    When I ask "hello" expecting an error
    Then the chat span has status ERROR with error.type "not_found"

  @LLM-008
  Scenario: google-genai's GOOGLE_GEMINI_BASE_URL is honoured when VERITY_GEMINI_BASE_URL is unset
    Given VERITY_GEMINI_BASE_URL is unset and GOOGLE_GEMINI_BASE_URL names the Gemini server
    And Gemini will stream "ok"
    When I ask "hello"
    Then the Gemini server got the request

  @LLM-008
  Scenario: VERITY_GEMINI_BASE_URL wins over GOOGLE_GEMINI_BASE_URL
    Given GOOGLE_GEMINI_BASE_URL names another Gemini server
    And Gemini will stream "ok"
    When I ask "hello"
    Then the Gemini server got the request and the other one none
