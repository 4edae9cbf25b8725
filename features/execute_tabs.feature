Feature: Steps and agents act in every tab, and the primary tab stays where it is
  A link may open a tab. A step says which tab it acts in; only a switch_tab step moves the
  primary tab, where steps act when they name none.

  @EXEC-078
  Scenario: A recipe reads the tab a target=_blank link opened, closes it and goes on in the first tab
    When I run the tab recipe "read-new-tab" on the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the output's heading is "Popup target"
    And the tab events are "t1 navigated", "t2 opened by pop from t1", "t2 closed by shut"
    And the steps started in tabs "open=t1 pop=t1 read=t2 shut=t1 check=t1"
    And the page of tab "t2" was checked against the target before "read" read it
    And the value "read" read is kept with tab "t2"'s validated document
    And executions.json says "read" acted in tab "t2" and "shut" closed it
    And the report's timeline shows "read" in tab "t2" and "shut" closing tab "t2"

  @EXEC-078
  Scenario: A step acting in a tab that never opened fails, and its on_failure leads on
    When I run the tab recipe "tab-never-opened" on the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the step "read" failed with "tab_unavailable" saying "no tab is named 'terms'"
    And the steps started in tabs "read=t1 first=t1"

  @EXEC-079
  Scenario: A link's tab does not move the primary tab; switch_tab does, and closing it gives it back
    When I run the tab recipe "switch-primary" on the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the steps started in tabs "still-first=t1 move=t1 now-new=t2 shut=t2 back=t1"
    And the primary tab moved to "t2" during "move" and back to "t1" during "shut"

  @EXEC-080
  Scenario: An agent reads the tab a link opened through browser_tabs and goes on in the first tab
    Given a Gemini server on loopback and an API key in the environment
    And the model will first take a snapshot
    And the model will then click the "Open in new tab" link by its ref
    And the model will then select the second of the open tabs its page section lists
    And the model will then call "browser_extract" to read the heading
    And the model will then close the tab it is in
    And the model will then close saying "read the new tab"
    When I run the tab recipe "agent-new-tab" on the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the output's heading is "Popup target"
    And the model's "browser_extract" acted in tab "t2"
    And the steps started in tabs "open=t1 read=t1 check=t1"
    And the tab events are "t1 navigated", "t2 opened by read from t1", "t2 closed by read"
