Feature: Nothing leaves the fence, not even WebRTC UDP
  A run's browser context sends its requests through the run's policy proxy, but WebRTC can send
  UDP straight to a STUN or TURN server or to a remote candidate, around any proxy (issue 15).
  Verity starts its own Chromium with WebRTC confined to the proxy and without mDNS, and refuses an
  attached Chromium (--browser-ws) whose pages can send UDP around the fence. Every peer in these
  scenarios is a UDP socket on loopback that counts the datagrams it receives.

  @POLICY-023
  Scenario: A launched Chromium confines WebRTC to the proxy, resolves no name itself and disables mDNS in one --disable-features flag
    Given a launched Chromium
    When its command line is read, from the process and from Chromium over CDP
    Then the command line has the WebRTC UDP confinement and exactly one --disable-features flag
    And the command line maps every name but loopback's to "not found"
    And the features Chromium disabled include WebRtcHideLocalIpsWithMdns, IsolateOrigins and site-per-process

  @POLICY-024
  Scenario Outline: A WebRTC page on the launched Chromium sends no datagram around the proxy
    Given the WebRTC fence site
    When the page's "<kind>" attempt starts <when> in a session with the network policy on the launched Chromium
    Then the page's quote was verified before the attempt was awaited
    And the attempt was spent without gathering a candidate
    And the off-domain peers received no datagram

    Examples:
      | kind   | when                            |
      | stun   | on load                         |
      | turn   | on load                         |
      | forged | on load                         |
      | forged | after the page was verified     |
      | stun   | after the page was verified     |

  @POLICY-025
  Scenario: Without the UDP confinement the same attempts do send datagrams (in a network namespace of their own)
    Given the WebRTC attempts run on a Chromium started without the UDP confinement, mDNS still off, inside a network namespace with no link out
    Then every attempt's peer received at least one datagram, on load and after the page was verified

  @POLICY-026
  Scenario: A run on a WebRTC page completes with its value while its peers receive nothing
    Given the WebRTC fence site
    When a recipe reads the page whose forged candidate is tried on load, through the run API on the launched Chromium
    Then the run completes with the page's quote
    And the off-domain peers received no datagram

  @POLICY-027
  Scenario: An attached Chromium started with the UDP confinement is probed, accepted, and its pages send nothing
    Given the WebRTC fence site
    And a desktop Chromium started with the UDP confinement and without mDNS, attached through --browser-ws
    When the page's "forged" attempt starts after the page was verified in a session of the attached Chromium
    Then the probe found the attached Chromium fenced
    And the off-domain peers received no datagram

  @POLICY-028
  Scenario: An attached Chromium started without the UDP confinement is refused by verity run and verity serve
    Given the WebRTC fence site
    And a Chromium started without the UDP confinement (mDNS still off), with a remote debugging port
    When "verity run --browser-ws" runs the WebRTC recipe on it
    Then it exits with the browser_crashed exit code, naming the flag the browser must be started with, without a traceback
    And the run's verdict says no browser could be had and names the flag
    When "verity serve --browser-ws" starts on it
    Then it exits with the configuration error code, naming the flag, without a traceback
    And the off-domain peers received no datagram
