Feature: An operator names, labels and bounds each browser endpoint
  An endpoint of --browser-ws (a flag, a line of the endpoints file, an entry of the config file's
  browser_ws) is its DevTools URL, optionally followed by id=NAME, labels=A,B and capacity=N.

  @POOL-006
  Scenario Outline: An endpoint's id, labels and capacity are read from its line, and a bad one is refused naming its place
    When verity serve reads the endpoint "<endpoint>" from endpoints.txt line 3
    Then it <outcome>

    Examples:
      | endpoint                                                         | outcome                                                       |
      | ws://127.0.0.1:9222/devtools/browser/A                           | has id browser-1, no labels and no capacity of its own        |
      | ws://127.0.0.1:9222/devtools/browser/A id=eu-1 labels=eu,gpu capacity=2 | has id eu-1, labels eu and gpu, and capacity 2         |
      | ws://127.0.0.1:9222/devtools/browser/A colour=blue               | is refused at endpoints.txt:3 naming "'colour=blue' is not one of" |
      | ws://127.0.0.1:9222/devtools/browser/A capacity=two              | is refused at endpoints.txt:3 naming "capacity=two is not a whole number" |
      | ws://u:hunter2@127.0.0.1:9222/devtools/browser/A id=a/b          | is refused at endpoints.txt:3 naming "[redacted]@127.0.0.1:9222" |

  @POOL-001
  Scenario: ListBrowsers shows an endpoint nobody listens at as lost and one failing the fence probe as refused
    Given a Chromium started without the UDP confinement, listening for DevTools on loopback
    When a pool of it as "open-udp" and of a loopback port nobody listens at as "gone" is started
    Then the pool describes "open-udp" as refused_by_fence_probe and "gone" as lost, each hosting no run

  @POOL-001 @POOL-002 @POOL-007
  Scenario: A server that launches its own Chromium lists it as "local", and a run pinned to a label it lacks ends before any launch
    Given the fixture site and the article recipes
    And a server that launches its own Chromium
    Then ListBrowsers lists one browser, "local", ready, with no labels, no endpoint and no capacity of its own
    When a client runs "service-article" pinned to label "gpu" there
    Then that run ends browser_unavailable, its summary naming "label 'gpu'" and "id 'local'"
    When I run "verity client browsers" against it
    Then it prints "local  ready  runs=0/no limit  labels=-  (launched)" and "runs waiting: 0"
    When I run "verity client run --recipe-name service-article --browser-label gpu" against it
    Then it exits 22, the browser_unavailable code, printing the final verdict naming "label 'gpu'"
    And the server has launched no Chromium
