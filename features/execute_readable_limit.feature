Feature: A run's evidence says when a page was too large for trafilatura
  Page preparation reads the readable text with trafilatura only up to readable_html_limit_bytes
  of HTML; the navigate and observe steps of a larger page say so in their evidence.

  @BROWSER-035
  Scenario: Navigating to and observing a 1 MB page keeps its visible text as readable text and says why
    When I run "observe-big-page" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the steps "open" and "look" say the HTML was over readable_html_limit_bytes=524,288
