Feature: The MCP browser toolset sends a page tree only when the client does not hold it yet
  A client that keeps its context is not sent the same tree twice: an unchanged page is said to
  be so in one line, with the refs it already holds still acting. What changed is always sent,
  a page that is not the target always says so, and a client may ask for the whole page.

  @MCP2-008 @MCP2-009 @MCP2-010
  Scenario: An unchanged page answers in one line, its earlier refs act, and a changed or blocked page says so
    Given "verity mcp --http" with the token "mcp-token-5d1e" and the browser toolset on 127.0.0.1
    When session U opens a page whose button changes its heading
    And session U takes a snapshot
    Then the snapshot answers in one line that the page is unchanged since the navigate's snapshot
    When session U waits for the heading it already shows
    Then the wait's answer says the page is unchanged too
    When session U clicks the heading's button by its ref from the navigate's answer
    Then the click acts, and its answer sends the changed tree
    When session U takes a snapshot with full true
    Then the answer sends the whole page again, under the same snapshot id
    When session U opens a page that is not found, and takes a snapshot of it
    Then both answers say the page is not the target, the snapshot's with its tree left out
    When the stdio server, started with --snapshot-mode full, opens the page and takes a snapshot
    Then the snapshot's answer sends the whole page
