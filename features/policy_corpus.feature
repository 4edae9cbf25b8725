Feature: The hostile corpus runs end to end: no request reaches a host the recipe does not allow
  Every page of tests/fixtures/hostile/labels.yaml runs the corpus recipe through Verity's run API
  (start_run), each in a browser context of its own whose requests go through the run's policy
  proxy. Each page must end with its labelled stop reason, blocker kind and value, refuse at least
  its labelled number of requests (benign pages none), and leave the counting off-domain host
  without a single connection. The labels were written before any page ran.

  @POLICY-015
  Scenario: Every hostile page ends as labelled on a launched Chromium
    Given the hostile corpus and its labels
    When every labelled page runs on the launched Chromium
    Then every page ends with its labelled stop reason, blocker kind and value
    And every page refused as many requests as its labels say
    And the off-domain host received nothing during any page
    And the totals are printed: off-domain requests, false successes and blocker kind accuracy

  @POLICY-016
  Scenario: Every hostile page ends as labelled on a Chromium attached through --browser-ws
    Given the hostile corpus and its labels
    And a Chromium started with a remote debugging port, attached the way --browser-ws attaches
    When every labelled page runs on the attached Chromium
    Then every page ends with its labelled stop reason, blocker kind and value
    And every page refused as many requests as its labels say
    And the off-domain host received nothing during any page
    And the totals are printed: off-domain requests, false successes and blocker kind accuracy

  @POLICY-017
  Scenario Outline: Without the network policy the counting host does receive the page's requests
    Given the hostile site
    When the corpus page "<page>" is opened in a browser session without a network policy
    Then the off-domain host received at least one connection

    Examples:
      | page                         |
      | redirect-302                 |
      | js-location-onload           |
      | iframe-offdomain             |
      | popup-window-open            |
      | img                          |
      | link-prefetch                |
      | unload-beacons               |
      | websocket                    |
      | dedicated-worker-fetch       |
      | service-worker-install-fetch |
      | start-userinfo               |
