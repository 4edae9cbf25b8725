Feature: No program outside the browser starts
  A page can name a scheme Chromium does not handle itself (mailto:, ssh:, ircs: ...), and Chromium
  then asks the desktop for its handler and starts it: an iframe's mailto: with no gesture made it
  run xdg-open (issue 33). Verity starts its Chromium with stubs of its own first on its PATH for
  every program Chromium runs to hand a URL to the desktop, and records every attempt with the
  run's blocked requests, a window a click opens on such a URL included, and a window that goes
  to one after it opens (its own script, or its opener's). In these scenarios a logging xdg-open
  stands first on the PATH of the process that starts Chromium, as in the hidden round.

  @POLICY-033 @POLICY-038 @POLICY-039
  Scenario: A page's frames naming mailto:, ssh: and ircs: start no program, and the run's evidence names each attempt
    Given the external-protocols page and a logging xdg-open first on the PATH
    When a recipe reads the page through the run API on the desktop Chromium Verity launched
    Then the run completes with the page's quote
    And verdict.json counts the frames' mailto, ssh and ircs attempts and the clicked windows' mailto, ssh and ircs as external_protocol blocked requests
    And Verity's own stub was asked to open the mailto URL, and the logging xdg-open never was

  @POLICY-033 @POLICY-038 @POLICY-039
  Scenario: On the headless shell the same page asks no program at all, and the run's evidence still names each attempt
    Given the external-protocols page and a logging xdg-open first on the PATH
    When a recipe reads the page through the run API on the headless shell Verity launched
    Then the run completes with the page's quote
    And verdict.json counts the frames' mailto, ssh and ircs attempts and the clicked windows' mailto, ssh and ircs as external_protocol blocked requests
    And neither Verity's stub nor the logging xdg-open was asked to open anything

  @POLICY-034
  Scenario: Without Verity's stubs the same page makes Chromium run the logging xdg-open, and an attached browser's attempts are recorded
    Given the external-protocols page and a logging xdg-open first on the PATH
    When the page opens in a session with the network policy on a Chromium started without Verity's stubs, attached through --browser-ws
    Then the logging xdg-open was asked to open the mailto URL
    And the session's blocked requests name the mailto, ssh and ircs attempts as external_protocol
