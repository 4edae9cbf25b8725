Feature: A server imports what its runs import lazily before it serves
  `verity run` imports a module only when its plan first needs it, to start sooner. A server runs
  plans of every kind on one event loop, where such an import would stall every other run, stream
  and lease renewal, so the server imports them all at start, on a worker thread.

  @SERVICE-067
  Scenario: After the server's start imports, nothing a run imports inside a function is left to import on the loop
    Given every module imported inside a function of the rooms a hosted run executes
    When a fresh Python process does the server's start imports
    Then every one of them is imported, except those whose import runs on a worker thread
