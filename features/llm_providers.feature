Feature: One gateway, three providers, each through its official SDK
  A team runs the model it already pays for, or one on its own hardware behind an
  OpenAI-compatible server. Each provider is reached through its own SDK, configured by that
  SDK's own environment variables, and gives the same events and the same typed errors.

  @LLM-013
  Scenario Outline: The same chat streams text, calls a tool and continues on <provider>
    Given a <provider> server on loopback chosen by VERITY_MODEL
    And the model will call "browser_click" with ref "s1:e4"
    And the model will then stream "Clicked ", "Save."
    When I stream a chat asking "Save the form" with the tool "browser_click"
    Then I receive a tool call "browser_click" with ref "s1:e4"
    When I send back the result ok for that call and stream again
    Then I receive the deltas "Clicked ", "Save."
    And the last event is done with 18 total tokens
    And the server's last request holds the tool's result for "browser_click"

    Examples:
      | provider  |
      | gemini    |
      | openai    |
      | anthropic |

  @LLM-014
  Scenario Outline: <provider> reads its key and server from its SDK's variables and sends the key only in <header>
    Given a <provider> server on loopback chosen by VERITY_MODEL
    And the model will then stream "ok"
    When I stream a chat asking "hello"
    Then I receive the deltas "ok"
    And every request carried the key in the "<header>" header and nowhere else

    Examples:
      | provider  | header         |
      | gemini    | x-goog-api-key |
      | openai    | authorization  |
      | anthropic | authorization  |

  @LLM-014
  Scenario Outline: Without <variable> the <provider> gateway fails naming it
    Given a <provider> server on loopback chosen by VERITY_MODEL
    And the environment holds no <variable>
    When I create the gateway
    Then it fails with LLM error "missing_api_key" mentioning "<variable>"

    Examples:
      | provider  | variable          |
      | openai    | OPENAI_API_KEY    |
      | anthropic | ANTHROPIC_API_KEY |

  @LLM-014
  Scenario: A step's own model wins over VERITY_MODEL, and a provider without a model name is a clear error
    Given VERITY_MODEL is "openai:gpt-fixture" and OPENAI_API_KEY and ANTHROPIC_API_KEY are set
    Then a step naming "anthropic:claude-fixture" talks to anthropic model "claude-fixture"
    And a step naming nothing talks to openai model "gpt-fixture"
    And a step naming the provider "anthropic" alone fails with "invalid_settings" mentioning "VERITY_MODEL=anthropic:<model name>"

  @LLM-015
  Scenario Outline: A 429 with Retry-After is retried and then answers on <provider>
    Given a <provider> server on loopback chosen by VERITY_MODEL
    And the gateway makes at most 3 attempts
    And the model will then fail with HTTP 429 saying "slow down" and Retry-After 0.2 seconds
    And the model will then stream "ok"
    When I stream a chat asking "hello"
    Then I receive the deltas "ok"
    And the server received exactly 2 requests

    Examples:
      | provider  |
      | gemini    |
      | openai    |
      | anthropic |

  @LLM-015
  Scenario Outline: <case> is a typed error on <provider>
    Given a <provider> server on loopback chosen by VERITY_MODEL
    And the gateway makes at most 2 attempts
    And the model will <answer>
    When I stream a chat asking "hello" expecting an error
    Then the error code is "<code>"
    And the server received exactly <requests> requests

    Examples:
      | provider  | case          | answer                                       | code               | requests |
      | gemini    | a 503         | keep failing with HTTP 503 saying "overload" | server_error       | 2        |
      | openai    | a 503         | keep failing with HTTP 503 saying "overload" | server_error       | 2        |
      | anthropic | a 503         | keep failing with HTTP 503 saying "overload" | server_error       | 2        |
      | gemini    | a broken body | answer with the body "{oops"                 | malformed_response | 1        |
      | openai    | a broken body | answer with the body "{oops"                 | malformed_response | 1        |
      | anthropic | a broken body | answer with the body "{oops"                 | malformed_response | 1        |
      | openai    | a refusal     | refuse                                       | refused            | 1        |
      | anthropic | a refusal     | refuse                                       | refused            | 1        |
      | gemini    | a refusal     | refuse                                       | prompt_blocked     | 1        |

  @LLM-016
  Scenario Outline: A screenshot reaches <provider> as an image, and the span records no bytes
    Given a <provider> server on loopback chosen by VERITY_MODEL
    And message content is captured in spans
    And the model will then stream "I see a page"
    When I stream a chat asking "What do you see?" with a screenshot
    Then the server received 1 image in its own shape
    And the chat span records an image part without its bytes

    Examples:
      | provider  |
      | gemini    |
      | openai    |
      | anthropic |

  @LLM-017
  Scenario Outline: Tool arguments that are not JSON come back as a call that says why on <provider>
    Given a <provider> server on loopback chosen by VERITY_MODEL
    And the model will call "browser_click" with the arguments text "{ref: s1:e4"
    When I stream a chat asking "Save the form" with the tool "browser_click"
    Then I receive a tool call "browser_click" whose arguments error says "not JSON"

    Examples:
      | provider  |
      | openai    |
      | anthropic |

  @LLM-017
  Scenario: A server that cannot call tools is a clear error naming how to turn them on
    Given a openai server on loopback chosen by VERITY_MODEL
    And the model will then fail with HTTP 400 saying "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set"
    When I stream a chat asking "Save the form" with the tool "browser_click" expecting an error
    Then the error code is "tools_unsupported"
    And the error names "--enable-auto-tool-choice"
