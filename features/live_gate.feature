Feature: verity bdd gate --live runs the @live scenarios against the model the environment names
  Before a release a team runs the gate's live mode (seed 004 §7): only the scenarios tagged @live,
  against a real model configured as a run reads it (VERITY_MODEL and the provider's own key and
  base URL). Without a model configured it refuses before anything runs and says what to set. CI
  stays offline: here the environment names an OpenAI-compatible server of ours on loopback.

  @LIVE-001
  Scenario: The live gate refuses without a model, and with one runs only the @live scenarios against it
    Given an environment that names no model and holds no model key
    When I run "verity bdd gate --live"
    Then it exits 3 before pytest starts, naming GEMINI_API_KEY and VERITY_MODEL
    When the environment names an Anthropic model but holds no Anthropic key
    And I run "verity bdd gate --live"
    Then it exits 3 before pytest starts, naming ANTHROPIC_API_KEY
    When the environment names an OpenAI model on a loopback server, with its key, as a team would set them
    And I run "verity bdd gate --live" over the live smoke scenario's tests and the action cache's
    Then the gate passes with the @live scenario passed and the other deselected, its contract proven
    And every model request reached the loopback server with that key, which the gate's output never shows
