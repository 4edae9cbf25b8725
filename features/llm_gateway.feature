Feature: The LLM gateway talks to Gemini and turns its answers into run events
  The gateway uses the real google-genai client. Text arrives as deltas, tool calls as
  LlmToolCall, every turn ends with one LlmDone, and failures are typed errors. The API key comes
  from the environment and never shows up anywhere but the request header.

  Background:
    Given a Gemini server on loopback
    And the environment holds the Gemini API key "sk-verity-test-4f9a2c"

  @LLM-001
  Scenario: A streamed answer arrives as deltas in order, then done
    Given Gemini will stream "Looking at ", "the page", " now."
    When I stream a chat asking "What is on the page?"
    Then I receive the deltas "Looking at ", "the page", " now."
    And the last event is done with finish reason "STOP" and 18 total tokens
    And Gemini received a streaming request with the system instruction and the question

  @LLM-002
  Scenario: A tool call goes to the model's tools and its result comes back
    Given Gemini will call "browser_click" with ref "s1:e4" and thought signature "sig-7"
    And Gemini will then stream "Clicked ", "Save."
    When I stream a chat asking "Save the form" with the tool "browser_click"
    Then I receive a tool call "browser_click" with ref "s1:e4"
    When I send back the result ok for that call and stream again
    Then I receive the deltas "Clicked ", "Save."
    And Gemini received the tool "browser_click" as a function declaration
    And Gemini's last request holds the function call with its thought signature and then the function response

  @LLM-003
  Scenario: No API key in the environment is a clear typed error
    Given the environment holds no Gemini API key
    When I create the gateway
    Then it fails with LLM error "missing_api_key" mentioning "GEMINI_API_KEY or GOOGLE_API_KEY"

  @LLM-004
  Scenario: The API key reaches Gemini only as a header and leaks nowhere
    Given Gemini will stream "ok"
    And Gemini will then fail with HTTP 500 saying "backend exploded"
    When I stream a chat asking "hello" while capturing every log record
    And I stream a chat asking "hello again" expecting an error
    Then every request carried the API key in the "x-goog-api-key" header only
    And the API key appears in no log record, event, error message, repr or traceback

  @LLM-005
  Scenario Outline: HTTP failures become typed errors; only 429 and 5xx are retried, a bounded number of times
    Given the gateway makes at most 3 attempts
    And Gemini will keep failing with HTTP <status> saying "<message>"
    When I stream a chat asking "hello" expecting an error
    Then the error code is "<code>" with HTTP status <status>
    And Gemini received exactly <requests> request
    And the error names <attempts>

    Examples:
      | status | message                     | code         | requests | attempts         |
      | 429    | Resource has been exhausted | rate_limited | 3        | "after 3 attempts" |
      | 503    | The model is overloaded     | server_error | 3        | "after 3 attempts" |
      | 404    | models/x is not found       | not_found    | 1        | no attempts      |

  @LLM-005
  Scenario: A rate-limited call is retried with backoff and then answers
    Given the gateway makes at most 3 attempts
    And Gemini will then fail with HTTP 429 saying "Resource has been exhausted"
    And Gemini will then stream "ok"
    When I stream a chat asking "hello"
    Then I receive the deltas "ok"
    And Gemini received exactly 2 request

  @LLM-006
  Scenario: A response that is not JSON is a malformed_response error
    Given Gemini will answer with the body "{oops, not json"
    When I stream a chat asking "hello" expecting an error
    Then the error code is "malformed_response"

  @LLM-006
  Scenario: A model slower than the timeout is a timeout error
    Given the gateway timeout is 300 ms
    And Gemini will stream "late" after 1.5 seconds
    When I stream a chat asking "hello" expecting an error
    Then the error code is "timeout"
