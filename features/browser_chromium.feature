Feature: Verity finds Chromium, attaches to a running one, and notices when it dies
  A launch looks for Chromium on PATH or in VERITY_CHROME and says how to install one when there
  is none; a session can attach to a Chromium already running with a remote debugging port and
  leave it running; and a browser killed under a session fails its next action, never hangs it.

  @BROWSER-007
  Scenario: A killed browser makes the next action fail with browser_crashed
    Given a separate browser with a session showing "/form.html"
    When the Chromium process is killed
    And I take a snapshot in that session
    Then the action fails with "browser_crashed"

  @BROWSER-008
  Scenario: Attaching to a Chromium that is already running
    Given a Chromium started with a remote debugging port on loopback
    When I connect to its DevTools endpoint and open "/form.html"
    Then the action succeeds
    And the connected session's snapshot lists button "Place order"
    And after disconnecting, that Chromium is still running

  @BROWSER-082
  Scenario: Attaching at the old address of a restarted Chromium fails at once, naming the refusal
    Given a Chromium on a fixed loopback DevTools port, killed and started again on that port
    When I connect to the first one's DevTools endpoint with a 10 minute attach timeout
    Then the connect fails with "connect_failed" saying "HTTP 404" within the test's 60 s ceiling
    And no command of that connection is still waiting to be sent

  @BROWSER-017
  Scenario: Launching without any Chromium says how to install one
    Given no Chromium on PATH and no VERITY_CHROME
    When I look for Chromium
    Then the launch error is "chromium_not_found" and mentions "apt-get install chromium" and "VERITY_CHROME"

  @BROWSER-081
  Scenario: pyppeteer asked for a browser of its own refuses, and driving one loads no downloader
    When a fresh Python process loads Verity's browser driver and asks pyppeteer to launch without a binary
    Then the launch is refused with "Verity never downloads Chromium" and "VERITY_CHROME"
    And that process loaded none of urllib3, tqdm and pyppeteer's own chromium_downloader

  @BROWSER-072
  Scenario: A headless launch finds the headless shell through its launcher script, a headful one chromium, and without a shell chromium
    Given a PATH holding chromium and a chromium-headless-shell script that starts its binary without exec
    When I look for Chromium headless and headful
    Then the headless one is the script's binary and the headful one is chromium
    And without the shell on PATH the headless one is chromium too
