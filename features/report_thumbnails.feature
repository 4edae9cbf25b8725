Feature: Thumbnails made beside the run, not in it
  A run stores a screenshot for every page it prepares, and its report shows each one as a
  thumbnail. Making a thumbnail decodes a PNG and resizes it: milliseconds of work that, on a
  thread of the run's own process, hold the lock the run's event loop needs to answer the
  browser. So a worker process makes them while the run goes on.

  @REPORT-008
  Scenario: A thumbnail asked for ahead comes from a worker process, which is replaced when it dies
    When a fresh interpreter asks ahead for two screenshots' thumbnails, killing the worker between them
    Then both thumbnails are the ones this process makes of those screenshots
    And Pillow is not among that interpreter's modules
    And the second thumbnail came from another worker process

  @REPORT-008
  Scenario: With no worker to be had, the thumbnail is made by the process that asked
    Given worker processes exit as soon as they start
    When a thumbnail is asked for ahead and then collected
    Then it is the one this process makes of that screenshot
    And the log says the thumbnail worker failed and the work stays in this process from now on
