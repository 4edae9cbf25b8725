Feature: The browser's own services stay quiet
  A context's requests go through its run's policy proxy, so a request Chromium makes for itself
  (autofill asking its server about a form) would be refused and counted against the run as a
  blocked request the page never made. Verity's Chromium is started with those services off.

  @POLICY-036
  Scenario: Typing into a form makes the launched Chromium ask no service of its own
    Given the hostile site
    And a Chromium without the service switches, whose context types into the form page until its proxy refuses the autofill service
    When a session on the launched Chromium types into the same form page and submits it
    Then that session's policy proxy refused nothing
