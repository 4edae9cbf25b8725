Feature: The model sees the page's screenshot when it takes images
  An agent step's `agent.vision: auto | on | off` decides whether its model is sent the page's
  screenshot as an image beside the tree. `auto` (the default) sends it to models known to take
  images, by provider and name, and not to unknown ones (a local model); VERITY_MODEL_VISION=on|off
  overrides it; `on` with a model known to take no images stops the run before it starts. A
  screenshot is sent when the page changed since the last one, and only the latest stays in the
  conversation. Each provider is a loopback server of ours driven by its real SDK.

  @LLM-031
  Scenario Outline: vision <vision> on <provider> (<model>): <what>
    Given the agent corpus site and a loopback server of every provider
    When the agent corpus case "soft-404-then-the-real-page" runs on <provider> model "<model>" with agent.vision <vision> and VERITY_MODEL_VISION "<override>"
    Then the run ends "completed"
    And <what>

    Examples:
      | provider  | model                | vision | override | what                                                                     |
      | gemini    | gemini-fixture-flash | auto   |          | every request carried exactly one image, and the page's change sent a new one |
      | anthropic | claude-fixture-haiku | auto   |          | every request carried exactly one image, and the page's change sent a new one |
      | openai    | openai-fixture-mini  | on     |          | every request carried exactly one image, and the page's change sent a new one |
      | openai    | openai-fixture-mini  | auto   |          | no request carried an image                                              |
      | gemini    | gemini-fixture-flash | off    |          | no request carried an image                                              |
      | gemini    | gemini-fixture-flash | auto   | off      | no request carried an image                                              |

  @LLM-032
  Scenario: vision on with a model known to take no images stops the run before any request
    Given the agent corpus site and a loopback server of every provider
    When the agent corpus case "soft-404-then-the-real-page" runs on openai model "gpt-3.5-turbo" with agent.vision on and VERITY_MODEL_VISION ""
    Then the run ends "invalid_input" before any model request, saying the model takes no images
