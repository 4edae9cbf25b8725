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
