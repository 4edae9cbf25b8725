Feature: Run the suite once and prove every contract
  `verity bdd gate` runs pytest once over the whole suite, maps each contract to its scenarios, the
  tests that bind them and their outcomes, and fails CI unless every contract is proven by passing
  tests. The traceability matrix it writes is the evidence.

  Background:
    Given a sample project whose contract DEMO-001 is proven by a bound scenario

  @GATE-009
  Scenario: A project whose contracts are all proven passes and gets a traceability matrix
    When I run "verity bdd gate --out matrix" on the sample project
    Then the command succeeds
    And the output shows pytest's closing summary "1 passed"
    And the output says "bdd gate: PASSED"
    And the output says "contracts: 1 passed, 0 failed"
    And the sample project's steps ran
    And the Markdown matrix "matrix/traceability.md" has a row for DEMO-001 with test "tests/test_adding.py::test_adding_two_numbers" and result "passed"
    And the JSON matrix "matrix/traceability.json" records DEMO-001 as "passed" with test outcome "passed"

  @GATE-010
  Scenario Outline: A contract whose scenario test does not pass fails the gate
    Given the sample project's scenario test is <sabotage>
    When I run "verity bdd gate <arguments>" on the sample project
    Then the command fails
    And the output says "DEMO-001: failed"
    And the JSON matrix "reports/traceability.json" records DEMO-001 as "failed" with test outcome "<outcome>"

    Examples:
      | sabotage                     | arguments                   | outcome |
      | failing                      |                             | failed  |
      | skipped                      |                             | skipped |
      | marked as an expected fail   |                             | xfailed |
      | broken in its fixture setup  |                             | error   |
      | deselected by pytest options | -- -k "not adding"           | not run |

  @GATE-011
  Scenario: A failing plain test fails the gate even when every contract is proven
    Given the sample project has a plain test "tests/test_plain.py" that fails
    When I run "verity bdd gate" on the sample project
    Then the command fails
    And the JSON matrix "reports/traceability.json" records DEMO-001 as "passed" with test outcome "passed"
    And the output says "1 test(s) failed or errored"
    And the output shows pytest's closing summary "1 failed, 1 passed"

  @GATE-012
  Scenario: A contract with no scenario fails the gate
    Given the sample project also declares contract "DEMO-002" with no scenario
    When I run "verity bdd gate" on the sample project
    Then the command fails
    And the output says "DEMO-002: no scenario"
    And the JSON matrix "reports/traceability.json" records DEMO-002 as "no scenario" with no test

  @GATE-012
  Scenario: A suite that collects no tests fails the gate
    Given the sample project has no tests
    When I run "verity bdd gate" on the sample project
    Then the command fails
    And the output says "pytest collected no tests"

  @GATE-013
  Scenario: With --json the verdict is the only thing on stdout
    When I run "verity bdd gate --json" on the sample project
    Then the command succeeds
    And stdout is a JSON verdict "passed" with DEMO-001 "passed"
    And stderr shows pytest's closing summary "1 passed"

  @GATE-014
  Scenario: A project root that is not a directory gets a plain error
    When I run "verity bdd validate --root no-such-directory" on the sample project
    Then the command exits with status 2
    And stderr says "--root no-such-directory is not a directory"
    And verity printed no traceback

  @GATE-014
  Scenario: pytest arguments given without "--" get a plain error
    When I run "verity bdd gate tests" on the sample project
    Then the command exits with status 2
    And stderr says "unexpected argument 'tests'; put pytest arguments after `--`"
    And verity printed no traceback
