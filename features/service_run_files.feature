Feature: Every file that explains a run, fetched over the API
  A team calling Verity from another service reads what its runs left on the server's disk (the
  verdict with its figures, the output, the executions and plans, the trace, the events and the
  report) without a shell on that server, and finds no secret in any of them.

  @SVC2-009
  Scenario: A client fetches every file of an ended run, checked by sha256, with no secret in any
    Given the fixture site and the article recipes
    And a recipe that types a secret input into the page and reads its echo
    And a server
    When a client runs that recipe with the secret read from the server's environment
    Then the client fetches verdict.json, output.json, executions.json, plans.json, trace.jsonl, events.jsonl and report.html, each matching its sha256
    And none of them holds the secret's value, and verdict.json has the run's figures
    And GetRun carries those figures of verdict.json
    And "verity client file" writes verdict.json to a file, checked
    And a name that is not a run file is refused INVALID_ARGUMENT at name, and an unknown run NOT_FOUND

  @SVC2-009
  Scenario: A run's files are served once it has ended, and only those it wrote
    Given a server that runs recipes sent by its tests
    When a served run is still running
    Then its verdict.json is refused FAILED_PRECONDITION with reason RUN_NOT_ENDED, and GetRun carries no verdict figures
    When the served run ends
    Then its report.html, which such a run never writes, is NOT_FOUND with reason RUN_FILE_MISSING
    And GetRun still carries no verdict figures, since the run wrote no verdict.json
    And a verdict.json linked from its directory to a file outside it is refused PERMISSION_DENIED
