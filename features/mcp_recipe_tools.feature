Feature: Recipes as MCP tools
  An MCP client (the official SDK's own) lists the recipes of a directory as tools, calls one and
  gets its verdict, structured output and run files; it sees the run's progress, cancels a run it
  no longer wants, and answers the run's approvals through MCP elicitation.

  @MCP-001 @MCP-002 @MCP-003 @MCP-006 @MCP-007
  Scenario: A stdio client lists the recipes as tools, runs one and receives progress, a verdict, structured output and the run's files
    Given "verity mcp" on stdio over the fixture site's recipes
    Then the tools are the recipes, each with its goal as the description
    And the article tool's input schema declares the site input and the secret token input
    And each tool's output schema is its recipe's, typed object, and none for a recipe whose output schema is an array
    When the client calls the article tool with progress and its secret token as @env:VERITY_SECRET_MCP_TEST
    Then the result is the completed verdict with the article's title as structured content
    And the progress notifications follow the run's states in order up to its completion
    And the result links the run's report, verdict and output, which the client reads
    And the run is in the store, completed
    And the secret token's value appears nowhere in the result, the progress or the run's record
    And reading a file outside the offered run files is refused, naming the offered files

  @MCP-002
  Scenario: Arguments that are not the recipe's inputs are a tool error and start no run
    Given "verity mcp --http" with the token "mcp-token-5d1e" over the fixture site's recipes
    When the client calls the article tool with an unknown argument and without the site
    Then the result is a tool error naming the unknown input and the missing one
    And no run was started

  @MCP-004
  Scenario: A cancelled tool call stops its run
    Given "verity mcp --http" with the token "mcp-token-5d1e" over the fixture site's recipes
    When the client calls the hanging tool and cancels the call once the page is loading
    Then the hanging run is recorded stopped with manual_stop

  @MCP-005
  Scenario: A client without elicitation cannot approve, and the run says so
    Given "verity mcp --http" with the token "mcp-token-5d1e" over the fixture site's recipes
    When the client calls the approval tool without an elicitation capability
    Then the result is a tool error whose verdict is approval_denied because the client cannot answer approvals

  @MCP-005 @MCP-006
  Scenario Outline: An HTTP client with the token answers the approval by elicitation (<era>)
    Given "verity mcp --http" with the token "mcp-token-5d1e" over the fixture site's recipes
    When a <era> client with the token calls the approval tool and <answers> the approval
    Then the approval was asked once, naming the run and the navigation
    And the verdict is <stop_reason>

    Examples:
      | era           | answers  | stop_reason     |
      | legacy        | accepts  | completed       |
      | 2026-07-28    | declines | approval_denied |

  @MCP-006
  Scenario: An HTTP request without the bearer token, or with another one, is refused with 401
    Given "verity mcp --http" with the token "mcp-token-5d1e" over the fixture site's recipes
    Then a client without the token is refused with 401
    And a client with another token is refused with 401
