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

  @EXEC-072
  Scenario: A Chromium in a profile of Verity's own is killed at close and its profile removed
    When a desktop Chromium launched in a profile of its own opens a page and is closed
    Then its process was ended by SIGKILL
    And its profile directory is gone
    And the temporary directory its singleton socket was in is gone

  @EXEC-072
  Scenario: A Chromium in a profile the caller named closes the ordinary way and keeps the profile
    When a desktop Chromium launched in a named profile directory opens a page and is closed
    Then its process exited with status 0
    And the named profile directory holds Chromium's "Local State"
