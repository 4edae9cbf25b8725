Feature: A gRPC client sees the run's tabs
  A run that opens, reads and closes a tab tells its watchers each change as it happens, and
  says which tab each step and tool acts in.

  @SERVICE-054
  Scenario: Run streams each tab event in order, and the tab of each step and tool
    Given the fixture site and the article recipes
    And a server
    When a client runs "service-tabs" with Run
    Then the events end with a completed, verified final verdict
    And the stream's tab events are "t1 navigated", "t2 opened by pop from t1", "t2 closed by shut"
    And the stream says step "read" acts in tab "t2" and step "check" in tab "t1"
    And every tool the stream reports for step "read" acts in tab "t2"
