Feature: The run report
  Every run leaves report.html in its run directory: one file that opens offline in any browser
  and shows how the run went, state by state, with what each page looked like.

  @REPORT-001 @REPORT-003
  Scenario: The demo's report renders in Chromium from the file alone
    When I run "verity demo"
    Then it printed the report's path in the run directory
    And executions.json names the screenshot of every state that prepared a page
    And the events announce the report as a "report" artifact just before the final verdict
    And Chromium shows the verdict "completed", the valid output and one row per executed state in order
    And every state that took a screenshot shows its thumbnail, decoded
    And the replan history shows each plan repair
    And a copy of the report alone in an empty directory renders the same thumbnails and fetches nothing
    And a screenshot of the rendered report is kept under reports/report/

  @REPORT-002
  Scenario: Hostile page text stays text
    Given a page whose title, text and values hold script tags, handlers and javascript: links
    When a run reads that page and its report is opened in Chromium
    Then the hostile text shows as literal text in the evidence and the output
    And the report has no script element, no javascript: link and no image but thumbnails, and no handler ran
    And the report forbids scripts in its Content-Security-Policy

  @REPORT-003
  Scenario: A served run's report is listed by GetRun
    Given "verity serve" with the hostile page's recipe
    When a client starts a run and follows it to its final verdict
    Then GetRun lists the report artifact, a file in the run's directory

  @REPORT-004
  Scenario: A run killed before it wrote its verdict still gets a report
    Given a run directory with executions.json and a screenshot but no verdict, plans or output
    When I run "verity report" on it
    Then the command exits 0 and prints the report's path
    And the report names the missing files and shows the state with its thumbnail

  @REPORT-004
  Scenario: A directory that holds no run
    When I run "verity report" on an empty directory
    Then the command exits 3 naming the directory

  @REPORT-004
  Scenario: A run file naming a path outside the run directory
    Given a run directory whose executions.json names a screenshot outside it
    When I run "verity report" on it
    Then the command exits 0 and prints the report's path
    And the report neither shows nor links the outside file
