Feature: verity serve spreads runs over a pool of attached browsers
  `--browser-ws` may be given more than once, or the endpoints listed in a file, one URL a line.
  A new run goes to the healthy endpoint with the fewest active runs. An endpoint that cannot be
  reached, drops or fails the UDP fence probe is out of the pool while it is retried with backoff;
  the runs on it end browser_crashed as on a single attached browser. Every run says which
  endpoint ran it, without the secrets its URL may carry.

  Background:
    Given the fixture site and the article recipes

  @SERVICE-061 @SERVICE-062 @SERVICE-065
  Scenario: Runs go to the endpoint with the fewest active runs, named in their events without the URL's token
    Given two Chromiums listening for DevTools on loopback
    And an endpoints file listing both, with comments, the second with a password in its URL
    And a verity serve process attached with --browser-ws-file
    When a client starts "service-hang" and waits until it names its browser endpoint
    And a second client starts "service-hang" and waits until it names its browser endpoint
    Then the first run names the first endpoint and the second run the second endpoint
    And no event of either run nor the server's log holds the password, which shows as redacted

  @SERVICE-063
  Scenario: A killed endpoint's run ends browser_crashed, new runs go to the other, and it is used again once it is back
    Given two Chromiums listening for DevTools on fixed loopback ports
    And a verity serve process attached to both with --browser-ws given twice, retrying a lost one at most every 1 second
    And a health watcher is watching the server
    When a client starts "service-hang" and waits until it names its browser endpoint
    And the Chromium of the first endpoint is killed
    Then the run ends error with stop reason browser_crashed
    And a client running "service-article" gets a completed, verified verdict from the second endpoint
    And the health watcher has seen only SERVING
    When a Chromium listens on the first endpoint's port again
    Then a run of "service-article" completes on the first endpoint again after its backoff

  @SERVICE-063 @SERVICE-066
  Scenario: With every endpoint down, health is NOT_SERVING and a run ends browser_crashed
    Given two Chromiums listening for DevTools on fixed loopback ports
    And a verity serve process attached to both with --browser-ws given twice, retrying a lost one at most every 1 second
    And a health watcher is watching the server
    When the Chromiums of both endpoints are killed
    Then the health watcher sees NOT_SERVING
    And a client running "service-article" gets a browser_crashed verdict saying no browser could be had
    When a Chromium listens on the first endpoint's port again
    Then the health watcher sees SERVING again
    And a client running "service-article" gets a completed, verified verdict from the first endpoint
    And the server's log shows it tried again, waiting at most 1 second between attempts

  @SERVICE-064
  Scenario: A pool with an endpoint whose pages can send UDP around the fence does not start
    Given a Chromium started with the UDP confinement and one started without it
    When verity serve starts with both as --browser-ws
    Then it exits with the configuration error code, naming the unfenced endpoint and the flag

  @SERVICE-061
  Scenario Outline: A bad endpoint list is refused at start-up, naming its line
    Given <source> whose line 3 is <problem>
    When verity serve starts with it
    Then it exits with the configuration error code naming line 3 and saying "<says>", without a traceback

    Examples:
      | source                       | problem                          | says           |
      | an endpoints file            | an http URL                      | ws://          |
      | an endpoints file            | the URL already listed on line 2 | already listed |
      | a config file's browser_ws list | an http URL                   | ws://          |

  @SERVICE-066
  Scenario Outline: A retry cap outside 0.5 to 3600 seconds stops the server at start
    When verity serve starts with browser_retry_max_seconds <value> given <how>
    Then it exits with the configuration error code saying "browser_retry_max_seconds must be 0.5 to 3600, got <value>", without a traceback

    Examples:
      | value  | how                |
      | 0.1    | in its config file |
      | 7200.0 | as a flag          |
