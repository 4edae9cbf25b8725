Feature: A report a person can read
  A run that read a long text (40 KB, many lines) still has a report whose verdict fits on the
  screen: long summaries and values show their start, the whole text one click away; JSON is
  indented; texts keep their real line breaks, never `\n` escapes; and a screenshot's thumbnail
  opens the full-size image.

  @REPORT-005
  Scenario: A long extracted text is folded in the verdict, readable behind one click
    Given a loopback page holding a 40 KB log of many lines
    When a run extracts the log and its report is opened in Chromium
    Then the verdict summary shows under 600 characters before anything is opened
    And one click on the verdict summary shows the whole log, its last line included

  @REPORT-006
  Scenario: The output is indented JSON and texts keep their line breaks
    Given a loopback page holding a 40 KB log of many lines
    When a run extracts the log and its report is opened in Chromium
    Then the output shows as indented JSON with the log folded
    And with every fold opened, the page shows the log's lines on lines of their own and no "\n" escape

  @REPORT-007
  Scenario: A screenshot's thumbnail opens the full-size image
    Given a loopback page holding a 40 KB log of many lines
    When a run extracts the log and its report is opened in Chromium
    Then every thumbnail links the full-size screenshot in the run directory, and says so
    And Chromium opens that link as the full-size image
    And the report fetched nothing but itself and data: images
