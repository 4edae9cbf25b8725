Feature: The MCP browser toolset on hostile pages
  An agent driving Verity's browser through MCP opens pages that try to reach another host: by a
  redirect, a popup, a beacon, an iframe, WebRTC. The session's fence stops every one of them before it
  reaches that host, and an act the fence refuses says so, with no effect on the page.

  Background:
    Given "verity mcp --http" with the browser toolset on 127.0.0.1, and the hostile corpus with its counting off-domain host

  @MCP-015
  Scenario: A redirect to another host is refused as domain_not_allowed
    When a session opens the allowed page that redirects to the off-domain host
    Then the answer is domain_not_allowed
    And the off-domain host received nothing

  @MCP-015
  Scenario: A link that opens a popup on another host is refused when clicked, with no effect
    When a session opens the page whose link opens the off-domain host in a new tab
    And the session clicks that link by its ref
    Then the answer says the click was refused and had no effect
    And every tab the page opened on the off-domain host shows Verity's block page
    And the off-domain host received nothing

  @MCP-015
  Scenario: A beacon and an iframe to another host never leave the page
    When a session opens the page that sends a beacon to the off-domain host on load
    And the session opens the page with an iframe from the off-domain host
    Then both pages are valid, and the iframe shows nothing of the off-domain host
    And the off-domain host received nothing

  @MCP-015
  Scenario: A WebRTC page's STUN and TURN attempts send nothing
    When a session opens the WebRTC page whose STUN attempt starts on load
    And the session waits until the page says its attempt is spent
    And the session opens the WebRTC page whose TURN attempt starts on load
    And the session waits until the page says its attempt is spent
    Then no WebRTC peer received a datagram
