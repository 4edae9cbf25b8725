Feature: One agent recipe, any model provider
  An agent step talks to Gemini, to OpenAI or any server speaking its Chat Completions API, or to
  Anthropic, each through its official SDK. The recipe names the model (agent.model: {provider,
  name}) or VERITY_MODEL sets the default; either way the run keeps the same guardrails and the
  same honesty. Each provider here is a loopback server of ours speaking its wire format, driven by
  the real SDK.

  @LLM-018
  Scenario Outline: The agent corpus case <case> ends <stop_reason> on <provider>, chosen by <chosen_by>
    Given the agent corpus site and a loopback server of every provider
    When the agent corpus case "<case>" runs on <provider>, chosen by <chosen_by>
    Then the run ends "<stop_reason>" with blocker kind "<blocker_kind>", and <provider> answered every model request

    Examples:
      | case                     | provider  | chosen_by            | stop_reason       | blocker_kind   |
      | control-reads-the-quote  | gemini    | VERITY_MODEL         | completed         | none           |
      | control-reads-the-quote  | openai    | VERITY_MODEL         | completed         | none           |
      | control-reads-the-quote  | anthropic | the recipe's model   | completed         | none           |
      | soft-404-read-and-closed | openai    | the recipe's model   | replans_exhausted | page_not_found |
      | soft-404-read-and-closed | anthropic | VERITY_MODEL         | replans_exhausted | page_not_found |
      | control-reads-the-quote  | gemini    | the recipe's model   | completed         | none           |
