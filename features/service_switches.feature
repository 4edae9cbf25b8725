Feature: A run's switches over gRPC
  A service rolls a strategy back for one run as `verity run --switch` does: the switches travel
  in the run options, the run goes by them and says so, and a switch that does not exist is
  refused before anything runs.

  @REPAIR-010
  Scenario: A client sets a run's switches in its run options, and an unknown one is refused
    Given the fixture site and the article recipes
    And a server
    When a client runs "service-article" with Run and the switches no_progress=off and cache=bypass
    Then the events end with a completed, verified final verdict
    And the run's first running status says "switches: no_progress=off, cache=bypass"
    And its verdict.json records no_progress off and cache bypass
    And a start with the switch sticky_tab=sideways is refused INVALID_ARGUMENT naming options.switches, and no run was created
