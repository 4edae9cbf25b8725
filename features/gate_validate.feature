Feature: Validate contracts, features and tests before anything runs
  `verity bdd validate` is the fast static half of the gate: a contract without a scenario, a
  scenario without a test or a step without a definition is a gap CI must name, with the file and
  line to fix, before a single test runs.

  Background:
    Given a sample project whose contract DEMO-001 is proven by a bound scenario

  @GATE-001
  Scenario: A complete project passes validation without running its tests
    When I run "verity bdd validate" on the sample project
    Then the command succeeds
    And the output says "bdd validate: OK"
    And none of the sample project's steps ran

  @GATE-002
  Scenario: A contract that no scenario proves is reported at its id
    Given the sample project also declares contract "DEMO-002" with no scenario
    When I run "verity bdd validate" on the sample project
    Then the command fails
    And the output reports "contract_without_scenario" at "DEMO-002" in "contracts/demo.yaml"

  @GATE-003
  Scenario: A tag that names no contract is reported at the tag
    Given the sample project's scenario is also tagged "@DEMO-404"
    When I run "verity bdd validate" on the sample project
    Then the command fails
    And the output reports "unknown_contract_tag" at "@DEMO-404" in "features/demo_adding.feature"

  @GATE-004
  Scenario: A scenario that no test binds is reported at the scenario
    Given the sample project has a feature "features/demo_subtracting.feature" that no test binds
    When I run "verity bdd validate" on the sample project
    Then the command fails
    And the output reports "unbound_scenario" at "Scenario: Subtracting" in "features/demo_subtracting.feature"

  @GATE-005
  Scenario: A step that no step definition matches is reported with its line and text
    Given the sample project's scenario ends with the step "And the total is even"
    When I run "verity bdd validate" on the sample project
    Then the command fails
    And the output reports "undefined_step" at "And the total is even" in "features/demo_adding.feature"
    And the output says "no step definition matches: And the total is even"

  @GATE-005
  Scenario: An outline row whose filled-in step matches no definition is reported
    Given the sample project has an outline whose second row reads "one" where a number is expected
    When I run "verity bdd validate" on the sample project
    Then the command fails
    And the output reports "undefined_step" at "Given the number <start>" in "features/demo_adding.feature"
    And the output says "no step definition matches: Given the number one"
    And the output does not say "no step definition matches: Given the number 1"

  @GATE-006
  Scenario: Every mistake in a malformed contract file is reported at its line and column
    Given the sample project's contract file reads:
      """
      contracts:
        - id: DEMO-001
          owner: demo
          statement: Adding two numbers gives their sum.
          source: {seed: 004_520acc07423a0cd3.txt, section: "7"}
        - id: DEMO-002
          owner: !python/name:os.system demo
          statment: a misspelt key
          source: {seed: 004_520acc07423a0cd3.txt}
        - id: DEMO-001
          owner: demo
          statement: 42
          source: {seed: 004_520acc07423a0cd3.txt, section: "7"}
        - id: demo-3
          owner: demo
          statement: A lower-case id.
          source: {seed: 004_520acc07423a0cd3.txt, section: "7"}
      """
    When I run "verity bdd validate" on the sample project
    Then the command fails
    And the output reports these problems in "contracts/demo.yaml":
      | kind                  | line:col |
      | unknown_yaml_tag      | 7:12     |
      | unknown_field         | 8:5      |
      | missing_field         | 6:5      |
      | missing_field         | 9:13     |
      | duplicate_contract_id | 10:9     |
      | wrong_type            | 12:16    |
      | malformed_contract_id | 14:9     |

  @GATE-006
  Scenario: A contract file that is not valid YAML is reported where the parser stopped
    Given the sample project's contract file reads:
      """
      contracts:
        - id: DEMO-001
          owner: [demo
          statement: Adding two numbers gives their sum.
      """
    When I run "verity bdd validate" on the sample project
    Then the command fails
    And the output reports these problems in "contracts/demo.yaml":
      | kind              | line:col |
      | yaml_syntax_error | 4:14     |

  @GATE-007
  Scenario: A test module that cannot be collected is a reported problem, not a crash
    Given the sample project has a test module "tests/test_multiplying.py" binding the missing scenario "Multiplying"
    When I run "verity bdd validate" on the sample project
    Then the command fails
    And the output reports "collection_error" at "@scenario" in "tests/test_multiplying.py" without a column
    And the output names the missing scenario "Multiplying"
    And verity printed no traceback

  @GATE-008
  Scenario: Every gap in a project is listed in one run, also as JSON
    Given the sample project also declares contract "DEMO-002" with no scenario
    And the sample project's scenario is also tagged "@DEMO-404"
    And the sample project has a feature "features/demo_subtracting.feature" that no test binds
    And the sample project's scenario ends with the step "And the total is even"
    And the sample project has a test module "tests/test_multiplying.py" binding the missing scenario "Multiplying"
    When I run "verity bdd validate --json" on the sample project
    Then the command fails
    And the JSON report lists exactly these problem kinds:
      | kind                      |
      | collection_error          |
      | contract_without_scenario |
      | unbound_scenario          |
      | undefined_step            |
      | unknown_contract_tag      |

  @GATE-022
  Scenario Outline: A mistyped contract tag is reported at the tag, and its scenario as proving nothing
    Given the sample project's scenario tag "@DEMO-001" is replaced by "<tag>"
    When I run "verity bdd validate" on the sample project
    Then the command fails
    And the output reports "malformed_contract_tag" at "<tag>" in "features/demo_adding.feature"
    And the output says "tag <tag> is written like a contract id but is not one; did you mean @DEMO-001?"
    And the output reports "scenario_without_contract" at "Scenario: Adding two numbers" in "features/demo_adding.feature"

    Examples:
      | tag       |
      | @DEMO-01  |
      | @demo-001 |
      | @DEMO_001 |

  @GATE-022
  Scenario: A scenario whose contract tag was removed is reported at the scenario
    Given the sample project's scenario tag "@DEMO-001" is replaced by "@wip"
    When I run "verity bdd validate" on the sample project
    Then the command fails
    And the output reports "scenario_without_contract" at "Scenario: Adding two numbers" in "features/demo_adding.feature"
    And the output reports "contract_without_scenario" at "DEMO-001" in "contracts/demo.yaml"

  @GATE-022
  Scenario: A mistyped second tag is reported even when the scenario has a good one
    Given the sample project's scenario is also tagged "@DEMO-2"
    When I run "verity bdd validate" on the sample project
    Then the command fails
    And the output reports "malformed_contract_tag" at "@DEMO-2" in "features/demo_adding.feature"
    And the output does not say "scenario_without_contract"

  @GATE-023
  Scenario: A then step that checks nothing is reported at its definition
    Given the sample project's then step compares the total through print only
    When I run "verity bdd validate" on the sample project
    Then the command fails
    And the output reports "then_step_without_check" at "def total_is" in "tests/test_adding.py" without a column
    And the output says "bound to features/demo_adding.feature:7: Then the total is 5"

  @GATE-023
  Scenario: What counts as a check in a then step
    Given the sample project's scenario also checks the total through each of these ways:
      | way                                                | checks |
      | an assert statement                                | yes    |
      | a raise statement                                  | yes    |
      | pytest.raises                                      | yes    |
      | a call named assertEqual                           | yes    |
      | a helper function that asserts                     | yes    |
      | a method of its annotated fixture that raises      | yes    |
      | a nested function it hands to a helper             | yes    |
      | print only                                         | no     |
      | a helper function that only returns the comparison | no     |
      | a method of an unannotated fixture                 | no     |
      | a library function that raises on bad input        | no     |
    When I run "verity bdd validate" on the sample project
    Then the command fails
    And the output reports then_step_without_check exactly for the ways that do not check

  @GATE-024
  Scenario Outline: A then step whose only check cannot fail is refused
    Given the sample project's then step compares the total through <form>
    When I run "verity bdd validate" on the sample project
    Then the command fails
    And the output reports "then_step_without_check" at "def total_is" in "tests/test_adding.py" without a column

    Examples:
      | form                                      |
      | a constant assertion                      |
      | an expression compared with itself        |
      | an assertion whose failure is caught      |
      | a constant true beside a real comparison  |

  @GATE-024
  Scenario: Checks that can fail still count beside the forms that cannot
    Given the sample project's scenario also checks the total through each of these ways:
      | way                                              | checks |
      | an assert statement                              | yes    |
      | assert False after its own test                  | yes    |
      | a caught failure raised again with more context  | yes    |
      | a constant assertion                             | no     |
      | an expression compared with itself               | no     |
      | an assertion whose failure is caught             | no     |
    When I run "verity bdd validate" on the sample project
    Then the command fails
    And the output reports then_step_without_check exactly for the ways that do not check
