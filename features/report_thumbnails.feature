Feature: Thumbnails made by the process writing the report
  A run stores a screenshot for every page it prepares, and its report shows each one as a
  thumbnail. They are made by Pillow when the report is drafted, after the run's last state,
  so a page is captured once and a run starts no process for them.

  @REPORT-008
  Scenario: Each screenshot is thumbnailed once by the process writing the report, labelled with its size
    Given a run directory whose states show two screenshots, one of them twice, and a file that is not an image
    When its report is written
    Then each state's thumbnail is the one Pillow makes of its screenshot, labelled with its size
    And the state whose screenshot is not an image shows no thumbnail
