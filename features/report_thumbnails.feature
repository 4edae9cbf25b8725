Feature: Thumbnails taken with the screenshots
  A run stores a screenshot for every page it prepares, and its report shows each one as a
  thumbnail. Chromium takes the thumbnail with the screenshot, under the same cover of secrets,
  and it is kept beside it: writing the report only reads it. A screenshot that has none (a run
  directory from before, a capture that made none) is thumbnailed by the process writing the report.

  @REPORT-008
  Scenario: A screenshot's kept thumbnail is shown as it is, labelled with the screenshot's size
    Given a run directory whose screenshot has a thumbnail kept beside it
    When its report is written
    Then the state's thumbnail is the kept file, labelled with the screenshot's size

  @REPORT-008
  Scenario: A screenshot without a usable thumbnail of its own is thumbnailed by the process writing the report
    Given a run directory with a screenshot that has no thumbnail and one whose kept thumbnail is not a JPEG
    When its report is written
    Then both thumbnails are the ones Pillow makes of those screenshots, labelled with their sizes

  @REPORT-008 @REPORT-004
  Scenario: A kept thumbnail outside the run directory is never read
    Given a run directory whose executions.json names a screenshot at its top, with a thumbnail where one would be kept outside it
    When its report is written
    Then the state's thumbnail is the one Pillow makes of that screenshot
