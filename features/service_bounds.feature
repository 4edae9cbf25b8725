Feature: One large value never breaks the API
  A page can yield megabytes of text. Every event still fits one gRPC message, the whole value is
  kept as an artifact of the run, and run records stay small, so streams, GetRun and ListRuns keep
  working for every client.

  @SERVICE-027 @SERVICE-028
  Scenario Outline: Events with <size> byte values fit a <limit> byte message limit, and the API keeps working
    Given a server with a <limit> byte message limit
    And a served run watched by a client
    When the run emits <size> byte values as an observation summary, agent notes, a tool result, page text in its output, evidence and its verdict summary, and a mapping of 100 values of <size> / 100 bytes
    Then the watcher receives the whole run, every event within the message limit
    And every value that was cut ends with a marker naming an artifact of the run that holds the whole value
    And GetRun lists those artifacts with paths relative to the run, within the message limit
    And ListRuns lists the run with a summary of at most 4096 bytes, within the message limit
    And streaming the run again from the store returns the same events

    Examples:
      | limit   | size    |
      | 65536   | 100000  |
      | 4194304 | 5000000 |

  @SERVICE-028
  Scenario: Runs with long inputs and labels are listed in pages that fit the message limit
    Given a server with a 65536 byte message limit
    And 12 ended runs, each with a 30000 byte input and a 30000 byte label
    Then GetRun of each run fits the message limit and shows its long values cut with their size
    And paging through ListRuns 50 at a time returns every run once, each page within the limit

  @SERVICE-027 @SERVICE-028
  Scenario: A real run whose page yields a 5 MB field keeps its stream, GetRun and ListRuns working
    Given a verity serve process with the default message limit, and a loopback page holding a 5000000 byte text
    When a client runs a recipe that extracts that text with Run
    Then the run completes, every event within the message limit
    And the extracted value ends with a marker naming an artifact of the run that holds the whole text
    And GetRun and ListRuns answer within the message limit
