Feature: No program outside the browser starts
  A page can name a scheme Chromium does not handle itself (mailto:, ssh:, ircs: ...), and Chromium
  then asks the desktop for its handler and starts it: an iframe's mailto: with no gesture made it
  run xdg-open (issue 33). Verity starts its Chromium with stubs of its own first on its PATH for
  every program Chromium runs to hand a URL to the desktop, and records every attempt with the
  run's blocked requests, a window a click opens on such a URL included, and a window that goes
  to one after it opens (its own script, or its opener's). A Chromium attached with --browser-ws
  was started by someone else: Verity accepts it only when no page of it can start such a program
  (a headless shell, or a desktop Chromium whose PATH holds no opener). In these scenarios a
  logging xdg-open stands first on the PATH of the process that starts Chromium, as in the hidden
  round.

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

  @POLICY-034 @POLICY-040
  Scenario: A desktop Chromium whose PATH holds the logging xdg-open is refused before any page opens, and would have run it
    Given the external-protocols page and a logging xdg-open first on the PATH
    When a recipe reads the page through the run API on a desktop Chromium started with that PATH, attached through --browser-ws
    Then the run ends browser_crashed as handlers_not_fenced, naming the logging xdg-open and what to do
    And the page was never requested, and the logging xdg-open was never asked
    When the page opens in a session with the network policy on that Chromium, reached without Verity's attach checks
    Then the logging xdg-open was asked to open the mailto URL
    And the session's blocked requests name the mailto, ssh and ircs attempts as external_protocol

  @POLICY-040
  Scenario: The same desktop Chromium started with that PATH less its openers is accepted, and the page's attempts start nothing
    Given the external-protocols page and a logging xdg-open first on the PATH
    When a recipe reads the page through the run API on a desktop Chromium started with that PATH less its openers, attached through --browser-ws
    Then the run completes with the page's quote
    And verdict.json counts the frames' mailto, ssh and ircs attempts and the clicked windows' mailto, ssh and ircs as external_protocol blocked requests
    And the logging xdg-open was never asked

  @POLICY-040
  Scenario: A headless shell attached with the logging xdg-open on its PATH is accepted, and asks no program
    Given the external-protocols page and a logging xdg-open first on the PATH
    When a recipe reads the page through the run API on a headless shell started with that PATH, attached through --browser-ws
    Then the run completes with the page's quote
    And verdict.json counts the frames' mailto, ssh and ircs attempts and the clicked windows' mailto, ssh and ircs as external_protocol blocked requests
    And the logging xdg-open was never asked
