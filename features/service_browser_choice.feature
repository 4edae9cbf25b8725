Feature: A client sees the server's browsers, pins a run to one, and runs wait their turn for a busy one
  ListBrowsers lists each browser of the server (each --browser-ws endpoint, or the Chromium it
  launches) with its id, labels, state, load and capacity. A run may be pinned to a browser's id
  or to a label. When no suitable browser is free, or the server already runs as many runs as
  --max-concurrent-runs allows, a run waits in waiting_for_browser_selection and takes its turn in
  order of arrival, within a queue length and a wait the operator sets; past them, or pinned to a
  browser the server does not have, it ends browser_unavailable saying why.

  Background:
    Given the fixture site and the article recipes
    And a Chromium listening for DevTools on loopback

  @POOL-001 @POOL-002 @POOL-003 @POOL-004
  Scenario: With one endpoint of capacity 1, runs started together wait their turn in order and all complete
    Given a server attached to it as "edge-1 labels=eu capacity=1", queueing at most 2 runs
    Then ListBrowsers shows "edge-1" ready, labelled "eu", hosting 0 runs of a capacity of 1
    When a first client starts "service-read-approval" pinned to label "eu" and waits for its confirmation request
    Then ListBrowsers shows "edge-1" busy, labelled "eu", hosting 1 runs of a capacity of 1
    When a second and then a third client start "service-article", each until its run waits for a browser
    Then ListBrowsers counts 2 runs waiting
    When another client runs "service-article"
    Then that run ends browser_unavailable, its summary naming "browser_queue_length"
    When the first run's confirmation is approved
    Then the three runs complete verified, the second taking the browser before the third
    And GetRun and the final verdict of each of the three name "edge-1"
    And ListBrowsers shows "edge-1" ready, labelled "eu", hosting 0 runs of a capacity of 1

  @POOL-002
  Scenario: A run pinned to a label no browser has ends browser_unavailable naming the label and the browsers there are
    Given a server attached to it as "edge-1 labels=eu capacity=1", queueing at most 2 runs
    When another client runs "service-article" pinned to label "gpu"
    Then that run ends browser_unavailable, its summary naming "label 'gpu'" and "edge-1 [eu]"

  @POOL-005
  Scenario: Over --max-concurrent-runs a run waits for a run slot instead of being refused, and completes
    Given a server attached to it allowing 1 concurrent run and waits of 300 seconds
    When a first client starts "service-read-approval" and waits for its confirmation request
    And a second and then a third client start "service-article", each until its run waits for a browser
    Then each waiting run's event says it waits for a run slot under max_concurrent_runs
    When the first run's confirmation is approved
    Then the three runs complete verified, the second taking the browser before the third

  @POOL-004
  Scenario: A run that waits longer than browser_wait_seconds ends browser_unavailable
    Given a server attached to it allowing 1 concurrent run and waits of 1 seconds
    When a first client starts "service-read-approval" and waits for its confirmation request
    And another client runs "service-article"
    Then that run ends browser_unavailable, its summary naming "browser_wait_seconds"
