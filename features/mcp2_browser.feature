Feature: The MCP browser toolset's tabs, snapshots and session ends
  An agent driving Verity's browser through MCP reads the tab it selected, gets snapshots that
  say only what the page section does not, and frees its browser when it ends its session.

  Background:
    Given "verity mcp --http" with the token "mcp-token-5d1e" and the browser toolset on 127.0.0.1

  @MCP2-001 @MCP2-003
  Scenario: A snapshot says only the page, and selecting a new tab answers with that tab's tree
    When session T opens the page with a link to a new tab
    And session T takes a snapshot
    Then the snapshot's result is its id and line count, and its page has no verdict line
    When session T clicks the link by its ref and selects the second tab with browser_tabs
    Then the answer's page section is the new tab's URL and tree
    And a click by a ref of that tree acts in the new tab

  @MCP2-002
  Scenario: A client that ends its HTTP session ends its browser session's run
    When session E opens the new tab's page and ends its MCP session
    Then the store records the session's run completed, saying the client ended its session

  @MCP2-004 @MCP2-005
  Scenario: One session's screenshots never show a typed secret, and its evaluated functions are fenced
    When session S types a password the page shows again, and takes screenshots
    Then each screenshot comes back as image content of its type and size
    And the typed password is covered in every screenshot, while text that is no secret shows
    When session S evaluates functions on the page: a read, a change, an off-domain fetch and a large result
    Then each answer is the function's JSON result, and the page is judged again after a change
    And the off-domain fetch never reached its host, and the session's run counts it blocked

  @MCP2-005
  Scenario: browser_evaluate is off unless the operator turns it on
    When the stdio server, started without --allow-evaluate, is asked for its tools and to evaluate
    Then browser_evaluate is not listed, and the call is refused saying how to turn it on
    And a session recipe offering browser_evaluate without naming it in tools.allow is invalid

  @MCP2-006 @MCP2-007
  Scenario: A secret typed by name never comes back nor is kept, and the session saved as a recipe runs again
    When session W types the secret site_pass by name into a text field the page shows again, then snapshots, screenshots and evaluates
    And session W saves itself as a recipe in the recipes directory
    Then browser_type offers the secret by name, and no answer holds its value: an evaluated value comes back as its marker
    And no file of the session's run and nothing in the server's store holds the value
    And the answer is a recipe that validates, its typed secret an input placeholder, written only inside the recipes directory
    And the saved recipe, run again as the server's tool with the secret from the environment, completes
