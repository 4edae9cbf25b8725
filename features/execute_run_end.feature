Feature: Ending a run from the command line
  The run of `verity run` closes its Chromium while it writes its run directory and report, and
  announces its verdict only once the browser is gone: nothing of the run is left running or
  unwritten when the verdict is seen.

  @EXEC-071
  Scenario: The final verdict comes after the run's Chromium exited, with the report written
    When I run "verity run --json" on the demo recipe with debug logging and stop reading at its final verdict
    Then the final verdict says completed
    And when the final verdict was read, the Chromium the command started had exited
    And when the final verdict was read, its profile directory was removed
    And when the final verdict was read, report.html and verdict.json were in the run directory
