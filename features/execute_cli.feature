Feature: Running recipes from the command line
  `verity run` reports progress and exits with the verdict's code; `verity demo` shows the whole
  recovery story on a loopback site in seconds. Bad recipes are reported with positions.

  @EXEC-014
  Scenario: A completed run exits 0 and prints JSON lines ending with the verdict
    When I run "verity run" on the demo recipe with --json
    Then the command exits 0
    And every output line is a JSON event and the last one is the final verdict "completed"
    And the run directory holds every telemetry file

  @EXEC-014
  Scenario: A failed verification exits with its own code
    When I run "verity run" on "verify-missing-text" against the quote site
    Then the command exits 10
    And the progress shows the "check" step "failed"

  @EXEC-015
  Scenario: An invalid recipe is reported with positions and exit code 3
    When I run "verity run" on the broken recipe
    Then the command exits 3
    And the errors name "broken.yaml:10:5: plan[0].tiemout_ms" and "broken.yaml:14:50: plan[1].extract.fields.price.type"
    And nothing was run

  @EXEC-015
  Scenario: Ctrl-C stops a run cleanly with exit code 130
    When I run "verity run" on "hang" and press Ctrl-C while the page loads
    Then the command exits 130
    And the run directory records a manual_stop verdict

  @EXEC-016 @EXEC-026
  Scenario: The demo completes and prints its verdict, output and run directory
    When I run "verity demo"
    Then the command exits 0
    And it printed the completed verdict, the output and the run directory
    And its trace.jsonl is one tree of spans rooted at the run's invoke_agent span, one child per executed state

  @EXEC-073
  Scenario: A run whose output is long prints its beginning and names the files that hold the whole
    When I run "verity run" on a recipe that extracts a 20000 character text from a loopback page
    Then the command exits 0
    And the summary and the output lines each print 2000 characters of it, then how many were left out and the file that holds the whole
    And output.json holds the whole text

  @EXEC-077
  Scenario: The run directory keeps the order it ran, a secret input as its marker
    When I run "verity run" on the demo recipe with its site given as @env:VERITY_ORDER_SITE and the label team=quotes
    Then the command exits 0
    And order.json holds the run's id and directory, the label and the plan plans.json holds
    And order.json shows site as its marker, names it secret and holds its value nowhere
