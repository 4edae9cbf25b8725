Feature: Run the suite once and prove every contract
  `verity bdd gate` runs pytest once over the whole suite, maps each contract to its scenarios, the
  tests that bind them and their outcomes, and fails CI unless every contract is proven by passing
  tests. The traceability matrix it writes is the evidence.
  Where a scenario runs "the program", a shell's view of `verity` is its subject: it runs the real
  console script; the others run the same command line through the CLI in the test's process.

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
    And the Markdown matrix "matrix/traceability.md" has a row for DEMO-001 under area "demo" with test "tests/test_adding.py::test_adding_two_numbers" and result "passed"
    And the JSON matrix "matrix/traceability.json" records DEMO-001 as "passed" with test outcome "passed"

  @GATE-010 @GATE-019
  Scenario Outline: A contract whose scenario test does not pass fails the gate, and the matrix says why
    Given the sample project's scenario test is <sabotage>
    When I run "verity bdd gate <arguments>" on the sample project
    Then the command fails
    And the output says "DEMO-001: failed"
    And the JSON matrix "reports/traceability.json" records DEMO-001 as "failed" with test outcome "<outcome>"
    And the JSON matrix "reports/traceability.json" gives DEMO-001's test the message "<message>"
    And the Markdown matrix "reports/traceability.md" lists under "Scenarios not passed" the test "tests/test_adding.py::test_adding_two_numbers" as "<outcome>" with the message "<message>"

    Examples:
      | sabotage                     | arguments | outcome | message                               |
      | failing                      |           | failed  | assert 5 == 6                         |
      | skipped                      |           | skipped | Skipped: parked                       |
      | marked as an expected fail   |           | xfailed | expected to fail: known bug           |
      | broken in its fixture setup  |           | error   | ConnectionError: the database is down |
      | stopped before it ran by -x  | -- -x     | not run |                                       |

  @GATE-011
  Scenario: A failing plain test fails the gate even when every contract is proven
    Given the sample project has a plain test "tests/test_plain.py" that fails
    When I run "verity bdd gate" on the sample project
    Then the command fails
    And the JSON matrix "reports/traceability.json" records DEMO-001 as "passed" with test outcome "passed"
    And the output says "1 test(s) failed or errored"
    And the output shows pytest's closing summary "1 failed, 1 passed"
    And the Markdown matrix "reports/traceability.md" lists under "Other failing tests" the test "tests/test_plain.py::test_broken_arithmetic" as "failed" with the message "assert (1 + 1) == 3"

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
    When I run the program "verity bdd gate --json" on the sample project
    Then the command succeeds
    And stdout is a JSON verdict "passed" with DEMO-001 "passed"
    And stderr shows pytest's closing summary "1 passed"

  @GATE-014
  Scenario: A project root that is not a directory gets a plain error
    When I run the program "verity bdd validate --root no-such-directory" on the sample project
    Then the command exits with status 2
    And stderr says "--root no-such-directory is not a directory"
    And verity printed no traceback

  @GATE-014
  Scenario: pytest arguments given without "--" get a plain error
    When I run the program "verity bdd gate tests" on the sample project
    Then the command exits with status 2
    And stderr says "unexpected argument 'tests'; put pytest arguments after `--`"
    And verity printed no traceback

  @GATE-015
  Scenario Outline: JUnit XML and Cucumber JSON are written beside the matrix, into a directory the gate creates
    Given the sample project's scenario test is <state>
    When I run "verity bdd gate --out ci/reports/gate" on the sample project
    Then the output says "CI reports: ci/reports/gate/junit.xml, ci/reports/gate/cucumber.json"
    And the JUnit XML "ci/reports/gate/junit.xml" records test "test_adding_two_numbers" as "<status>"
    And the Cucumber JSON "ci/reports/gate/cucumber.json" records scenario "Adding two numbers" tagged "@DEMO-001" as "<status>"

    Examples:
      | state   | status |
      | passing | passed |
      | failing | failed |

  @GATE-015
  Scenario: Report paths given to pytest replace the defaults, and their directories are created
    When I run "verity bdd gate -- --junitxml=ci/one/own-junit.xml --cucumberjson ci/two/own-cucumber.json" on the sample project
    Then the command succeeds
    And the output says "CI reports: ci/one/own-junit.xml, ci/two/own-cucumber.json"
    And the JUnit XML "ci/one/own-junit.xml" records test "test_adding_two_numbers" as "passed"
    And the Cucumber JSON "ci/two/own-cucumber.json" records scenario "Adding two numbers" tagged "@DEMO-001" as "passed"
    And the sample project has no file "reports/junit.xml"

  @GATE-016
  Scenario: A -k selection judges only the contracts whose scenarios it selects, and says so
    Given the sample project also has contract "DEMO-002" of area "demo" proven by a passing multiplying scenario
    When I run "verity bdd gate -- -k adding" on the sample project
    Then the command succeeds
    And the output says "subset: 1 of 2 contracts judged, -k adding"
    And the output says "contracts: 1 passed, 0 failed"
    And the Markdown matrix "reports/traceability.md" says "Subset: 1 of 2 contracts judged, -k adding; 1 not selected."
    And the JSON matrix "reports/traceability.json" records DEMO-001 as "passed" with test outcome "passed"
    And the JSON matrix "reports/traceability.json" records DEMO-002 as "not selected" with test outcome "deselected"

  @GATE-016
  Scenario: A path selection judges only the contracts of the scenarios under that path
    Given the sample project also has contract "DEMO-002" of area "demo" proven by a passing multiplying scenario
    When I run "verity bdd gate -- tests/test_multiplying.py" on the sample project
    Then the command succeeds
    And the output says "subset: 1 of 2 contracts judged, tests/test_multiplying.py"
    And the JSON matrix "reports/traceability.json" records DEMO-002 as "passed" with test outcome "passed"
    And the JSON matrix "reports/traceability.json" records DEMO-001 as "not selected"

  @GATE-016
  Scenario: The whole suite is not a subset
    Given the sample project also has contract "DEMO-002" of area "demo" proven by a passing multiplying scenario
    When I run "verity bdd gate -- -x" on the sample project
    Then the command succeeds
    And the output says "contracts: 2 passed, 0 failed"
    And the output does not say "subset"

  @GATE-017
  Scenario Outline: A selected scenario that does not pass still fails a subset
    Given the sample project also has contract "DEMO-002" of area "demo" proven by a passing multiplying scenario
    And the sample project's scenario test is <sabotage>
    When I run "verity bdd gate -- -k adding" on the sample project
    Then the command fails
    And the output says "subset: 1 of 2 contracts judged, -k adding"
    And the output says "DEMO-001: failed"
    And the JSON matrix "reports/traceability.json" records DEMO-001 as "failed" with test outcome "<outcome>"
    And the JSON matrix "reports/traceability.json" records DEMO-002 as "not selected"

    Examples:
      | sabotage | outcome |
      | failing  | failed  |
      | skipped  | skipped |

  @GATE-018
  Scenario: The Markdown matrix opens with a summary per area
    Given the sample project also has contract "MATH-001" of area "math" proven by a passing multiplying scenario
    And the sample project's scenario test is failing
    When I run "verity bdd gate" on the sample project
    Then the command fails
    And the Markdown matrix "reports/traceability.md" summarises the areas before the contract tables:
      | Area    | Contracts | Proven | Not proven | Not selected | Scenarios | Tests |
      | demo    | 1         | 0      | 1          | 0            | 1         | 1     |
      | math    | 1         | 1      | 0          | 0            | 1         | 1     |
      | **all** | 2         | 1      | 1          | 0            | 2         | 2     |

  @GATE-020
  Scenario: Non-ASCII test parameters are readable in the Markdown matrix
    Given the sample project also has an outline adding the written number "二"
    When I run "verity bdd gate" on the sample project
    Then the command succeeds
    And the Markdown matrix "reports/traceability.md" shows the test "tests/test_adding.py::test_adding_a_written_number[二-5]"
    And the Markdown matrix "reports/traceability.md" has no escape "\u4e8c"

  @GATE-021
  Scenario: Skipped and xfailed plain tests are listed with their reasons
    Given the sample project has a plain test "tests/test_parked.py" that is skipped because "no network here"
    And the sample project has a plain test "tests/test_known_bug.py" that is expected to fail because "bug 12"
    When I run "verity bdd gate" on the sample project
    Then the command succeeds
    And the Markdown matrix "reports/traceability.md" lists under "Plain tests skipped or xfailed" the test "tests/test_parked.py::test_plain" as "skipped" with the message "Skipped: no network here"
    And the Markdown matrix "reports/traceability.md" lists under "Plain tests skipped or xfailed" the test "tests/test_known_bug.py::test_plain" as "xfailed" with the message "expected to fail: bug 12"


  @GATE-025
  Scenario: Under pytest-xdist workers the matrix and the CI reports say what one process says
    Given the sample project has a plain test "tests/test_plain.py" that fails
    When I run "verity bdd gate -- -n 2" on the sample project
    Then the command fails
    And the output shows pytest's closing summary "1 failed, 1 passed"
    And the output says "1 test(s) failed or errored"
    And the JSON matrix "reports/traceability.json" records DEMO-001 as "passed" with test outcome "passed"
    And the Markdown matrix "reports/traceability.md" has a row for DEMO-001 under area "demo" with test "tests/test_adding.py::test_adding_two_numbers" and result "passed"
    And the Markdown matrix "reports/traceability.md" lists under "Other failing tests" the test "tests/test_plain.py::test_broken_arithmetic" as "failed" with the message "assert (1 + 1) == 3"
    And the JUnit XML "reports/junit.xml" records test "test_adding_two_numbers" as "passed"
    And the Cucumber JSON "reports/cucumber.json" records scenario "Adding two numbers" tagged "@DEMO-001" as "passed"

  @GATE-025
  Scenario: Under pytest-xdist workers a step no definition matches is still reported
    Given the sample project's scenario ends with the step "And the total is even"
    When I run "verity bdd gate -- -n 2" on the sample project
    Then the command fails
    And the output reports "undefined_step" at "And the total is even" in "features/demo_adding.feature"
