Feature: The server always has a browser, and no browser outlives the server or learns its secrets
  Runs need Chromium. When it dies or its connection drops, the runs on it end browser_crashed and
  the server gets another for the next run; while it cannot, its health says so. A killed server
  takes its Chromium with it, and Chromium never sees the server's token or API keys.

  Background:
    Given the fixture site and the article recipes

  @SERVICE-030
  Scenario: Chromium dies mid-run: the run ends browser_crashed and the next run completes
    Given a verity serve process
    When a client starts "service-hang" and waits until its first browser action is under way
    And the server's Chromium is killed
    Then the run ends error with stop reason browser_crashed
    And a client running "service-article" gets a completed, verified verdict

  @SERVICE-030
  Scenario: While no Chromium can be started, health is NOT_SERVING; once one can, runs complete again
    Given a verity serve process whose Chromium can be switched off
    And a client running "service-article" gets a completed, verified verdict
    And a health watcher is watching the server
    When Chromium is switched off and the server's Chromium is killed
    Then the health watcher sees NOT_SERVING
    When Chromium is switched on again
    Then the health watcher sees SERVING again
    And a client running "service-article" gets a completed, verified verdict

  @SERVICE-030
  Scenario: A dropped --browser-ws connection is reconnected once that Chromium is back
    Given a Chromium listening for DevTools on a fixed loopback port
    And a verity serve process attached to it with --browser-ws, retrying a lost one at most every 1 second
    And a client running "service-article" gets a completed, verified verdict
    And a health watcher is watching the server
    When that Chromium is killed
    Then the health watcher sees NOT_SERVING
    When a Chromium listens on that port again
    Then the health watcher sees SERVING again
    And a client running "service-article" gets a completed, verified verdict

  @SERVICE-031
  Scenario: A killed server's Chromium does not outlive it, counting its successor's clean-up
    Given a verity serve process
    When a client starts "service-read-approval" and waits for its confirmation request
    And the server process alone is killed with SIGKILL
    And verity serve is started again on the same store
    Then no Chromium process of the killed server is left
    And the killed server's Chromium profile is gone

  @SERVICE-031
  Scenario: A Chromium whose server is gone is killed, and its profile removed, by the next server to start
    Given a Chromium left running in the store's profile directory by a server that is gone
    And a Chromium running in the store's profile directory for a server that is alive
    When verity serve is started on that store
    Then the Chromium of the server that is gone is no longer running and its profile is removed
    And the Chromium of the live server still runs in its profile

  @SERVICE-031
  Scenario: A profile being made is never taken for one whose owner is gone
    When a Chromium profile is made while another process reaps the same directory at the worst moment
    Then the reaper did not take the new profile for a dead one
    And the new profile is in place with its owner marked

  @SERVICE-032
  Scenario: Chromium starts without the server's token or API keys in its environment
    Given a verity serve process with a token, a Gemini key and a Google key in its environment
    When a client starts "service-read-approval" and waits for its confirmation request
    Then no process of the server's Chromium holds the token or a key in its environment
