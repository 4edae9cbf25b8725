Feature: A model's gateway is opened off the event loop
  The first gateway a process opens for a provider imports that provider's SDK and builds its
  client: most of a second of CPU, several seconds on a loaded machine. The event loop that runs
  a plan also answers Chromium, serves every other run of `verity serve` and renews a replica's
  lease, so none of that work may happen on it.

  @LLM-033
  Scenario: An agent step's first gateway imports the provider's SDK on a worker thread
    Given a fresh Python process that records the thread of every provider SDK import
    When it compiles an agent recipe and opens the agent step's gateway from the plan's event loop
    Then google.genai was imported, and not on the event loop's thread
