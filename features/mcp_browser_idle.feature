Feature: An idle MCP browser session is closed
  An HTTP client that goes away never says so; its session's browser must not hold a browser
  context and a run slot until the run's time runs out.

  @MCP-013
  Scenario: The session's turns close the step when no call comes in the idle time
    Given a browser session's turns with an idle time of 0.05 seconds
    When the agent step asks for a turn and the client calls nothing
    Then the turn is close, with a summary saying the client was idle

  @MCP-013
  Scenario: A call made in time is the turn, not a close
    Given a browser session's turns with an idle time of 0.05 seconds
    When the client has called browser_snapshot and the agent step asks for a turn
    Then the turn is the client's browser_snapshot call
