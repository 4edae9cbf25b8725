Feature: Each newer strategy can be rolled back by a switch, and the run says so
  Seed 004 rolls back by feature switch: no_progress, auto-repair and the verify mode can each be
  turned back by the recipe (`switches:`) or by a run option (`verity run --switch NAME=VALUE`).
  The defaults are the strategies as they are; a switch set otherwise is recorded in the run's
  events and verdict.

  Background:
    Given a Gemini server on loopback and an API key in the environment

  @REPAIR-008
  Scenario: With no_progress switched off, a model that repeats itself is not stopped for it
    Given the step's model will click the element with css "#noop" 2 times
    And the step's model will then close saying "saved"
    When I run "repair-no-progress" against the fixture site with the switch "no_progress=off"
    Then the run ends "error" with stop reason "verification_failed"
    And the run's events and verdict record the switch "no_progress" as off

  @REPAIR-008
  Scenario: With auto_repair switched off, a repairable failure is left as it is
    When I run "repair-act" against the fixture site with the switch "auto_repair=off"
    Then the run ends "error" with stop reason "execute_error"
    And the repair of "save" says the auto_repair switch is off, and the model was never asked
    And the run's events and verdict record the switch "auto_repair" as off

  @REPAIR-008
  Scenario: A recipe's lenient verify switch lets a click without an effect of its own count
    When I run "switch-lenient" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the act "press" counted by the lenient verify switch
    And the verdict records the verify switch as lenient for "click"

  @REPAIR-008
  Scenario: With sticky_tab switched off, a tab a step opens becomes the primary tab
    When I run "switch-tab-follows" against the fixture site with the switch "sticky_tab=off"
    Then the run ends "completed" with stop reason "completed"
    And the verify step "there" judged the new tab, which became primary after "follow"
    And the run's events and verdict record the switch "sticky_tab" as off

  @REPAIR-008
  Scenario: A switch that does not exist is refused before anything runs
    When I prepare a run of "switch-lenient" with the switch "no_progess=off"
    Then it is refused, naming the switches there are
