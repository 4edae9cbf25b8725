Feature: A fenced, verifying browser toolset over MCP
  An agent that drives the page itself calls Verity's browser tools through MCP. Each MCP session
  is a run of its own, on the agent step's tool-call path: the fence keeps it on its allowed
  domains, every act returns its proof, and the page comes back as an aria-YAML tree with refs.

  Background:
    Given "verity mcp --http" with the token "mcp-token-5d1e" and the browser toolset on 127.0.0.1

  @MCP-008
  Scenario: The browser tools are listed with the agent's names and argument shapes
    Then the listed tools include the browser tools and browser_close
    And browser_click takes a target and says how to write one
    And "verity mcp --allowed-domains" with a URL instead of a host exits 2, saying what to give

  @MCP-009 @MCP-010
  Scenario: A session navigates, acts on a ref and gets each act's proof, and cannot leave its domains
    When session A opens the page with the beacon
    Then the answer is the valid page with its aria-YAML tree and refs
    When session A clicks the "Nothing happens" button by its ref
    Then the answer says the click had no effect
    When session A clicks the "Cookie page" link by Playwright's ref argument
    Then the answer proves a new document with the page changed
    When session A navigates to localhost
    Then the answer is domain_not_allowed with the page unchanged
    And no request of the session reached localhost

  @MCP-011
  Scenario: Two sessions at once keep their own cookies and pages
    When session A and session B each open the cookie page as its owner
    Then each session's page shows only its own cookie
    And each session is its own run

  @MCP-011
  Scenario: A sessionless client is refused the browser tools, naming why
    Then a 2026-07-28 client calling browser_navigate is refused because it has no MCP session

  @MCP-012
  Scenario: browser_close ends the session's run, and the next call starts a new one
    When session C opens the cookie page and closes the browser
    Then the answer is the completed verdict of the session's run, which the store records
    And session C's next call runs in a new run
