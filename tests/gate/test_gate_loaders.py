"""Details of the contract loader, the feature parser and the matrix, without nested pytest runs."""

from __future__ import annotations

from pathlib import Path

from runtime.gate.ci_reports import ci_report_args
from runtime.gate.collect import PytestReport, PytestRun, run_pytest
from runtime.gate.contracts import load_contracts
from runtime.gate.features import load_features
from runtime.gate.gate import judge
from runtime.gate.matrix import readable_node_id, render_markdown
from runtime.gate.validate import find_gaps

REPO_ROOT = Path(__file__).resolve().parents[2]

VALID_CONTRACT = """\
contracts:
  - id: DEMO-001
    owner: demo
    statement: Pipes | in a statement stay inside their table cell.
    source:
      seed: 004_520acc07423a0cd3.txt
      section: "7"
"""


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def test_valid_contract_keeps_the_position_of_its_id(tmp_path: Path) -> None:
    root = _project(tmp_path, {"contracts/demo.yaml": VALID_CONTRACT})
    catalog = load_contracts(root)
    assert catalog.problems == []
    [contract] = catalog.contracts
    assert (contract.id, contract.owner, contract.source.seed, contract.source.section) == (
        "DEMO-001",
        "demo",
        "004_520acc07423a0cd3.txt",
        "7",
    )
    assert (contract.path, contract.line, contract.column) == ("contracts/demo.yaml", 2, 9)


def test_duplicate_ids_are_reported_across_files_at_the_later_one(tmp_path: Path) -> None:
    root = _project(tmp_path, {"contracts/a.yaml": VALID_CONTRACT, "contracts/b.yaml": VALID_CONTRACT})
    catalog = load_contracts(root)
    [problem] = catalog.problems
    assert (problem.kind, problem.location) == ("duplicate_contract_id", "contracts/b.yaml:2:9")
    assert problem.evidence == "first defined at contracts/a.yaml:2:9"
    assert [contract.path for contract in catalog.contracts] == ["contracts/a.yaml"]


def test_structural_mistakes_are_reported_with_field_paths(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "contracts/a.yaml": "contracts: {id: DEMO-001}\nversion: 2\n",
            "contracts/b.yaml": "",
            "contracts/c.yaml": "contracts:\n  - just a string\n  - id: DEMO-003\n    owner: demo\n"
            "    statement: '   '\n    source: [seed, section]\n",
            "contracts/d.yaml": "--- {contracts: []}\n--- {contracts: []}\n",
        },
    )
    rendered = sorted(problem.render() for problem in load_contracts(root).problems)
    assert rendered == [
        "contracts/a.yaml:1:12: wrong_type: `contracts` must be a list of contracts",
        "contracts/a.yaml:2:1: unknown_field: unknown field version; allowed: contracts",
        "contracts/b.yaml:1:1: empty_contract_file: the file is empty; expected a top-level `contracts:` list",
        "contracts/c.yaml:2:5: wrong_type: contracts[0] must be a mapping with id, owner, statement, source",
        "contracts/c.yaml:5:16: empty_field: contracts[1].statement must not be empty",
        "contracts/c.yaml:6:13: wrong_type: contracts[1].source must be a mapping with seed and section",
        "contracts/d.yaml:2:1: yaml_syntax_error: invalid YAML: but found another document",
    ]


def test_an_unknown_tag_is_rejected_before_anything_is_constructed(tmp_path: Path) -> None:
    text = VALID_CONTRACT.replace("owner: demo", "owner: !!python/object/apply:os.system ['true']")
    catalog = load_contracts(_project(tmp_path, {"contracts/demo.yaml": text}))
    assert [(problem.kind, problem.location) for problem in catalog.problems] == [
        ("unknown_yaml_tag", "contracts/demo.yaml:3:12")
    ]
    assert catalog.contracts == []
    assert catalog.declared_ids == {"DEMO-001"}


def test_scenarios_inherit_feature_and_rule_tags_and_background_steps(tmp_path: Path) -> None:
    feature = """\
@DEMO-001
Feature: Tags travel down

  Background:
    Given a clean slate

  Scenario: Plain
    When nothing happens

  Rule: Ruled
    @DEMO-002 @wip
    Scenario Outline: Outlined <n>
      Then <n> is seen

      @DEMO-003
      Examples:
        | n |
        | 1 |
"""
    catalog = load_features(_project(tmp_path, {"features/demo.feature": feature}))
    assert catalog.problems == []
    plain, outlined = catalog.scenarios
    assert (plain.name, plain.location, plain.contract_ids) == ("Plain", "features/demo.feature:7:3", ("DEMO-001",))
    assert [step.text for step in plain.steps] == ["a clean slate", "nothing happens"]
    assert outlined.contract_ids == ("DEMO-001", "DEMO-002")
    assert [(step.keyword, step.text, step.line, step.column) for step in outlined.steps] == [
        ("Given", "a clean slate", 5, 5),
        ("Then", "<n> is seen", 13, 7),
    ]
    written = [(use.tag.name, use.tag.line, use.tag.column) for use in catalog.tag_uses]
    assert written == [("DEMO-001", 1, 1), ("DEMO-002", 11, 5), ("wip", 11, 15), ("DEMO-003", 15, 7)]


def test_feature_syntax_errors_and_duplicate_scenario_names_are_problems(tmp_path: Path) -> None:
    broken = "Feature: Broken\n  Scenario: One\n    Given a step\n  This line is not Gherkin\n"
    twice = "Feature: Twice\n  Scenario: Same\n    Given a\n\n  Scenario: Same\n    Given b\n"
    catalog = load_features(_project(tmp_path, {"features/a.feature": broken, "features/b.feature": twice}))
    [syntax, duplicate] = sorted(catalog.problems, key=lambda problem: problem.path)
    assert (syntax.kind, syntax.location) == ("feature_syntax_error", "features/a.feature:4:3")
    assert "got 'This line is not Gherkin'" in syntax.message
    assert (duplicate.kind, duplicate.location) == ("duplicate_scenario_name", "features/b.feature:5:3")
    assert duplicate.evidence == "first used at features/b.feature:2"


def test_matrix_escapes_pipes_and_reports_a_pytest_that_never_reported(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "contracts/demo.yaml": VALID_CONTRACT,
            "features/demo.feature": "Feature: F\n  @DEMO-001\n  Scenario: S\n    Given x\n",
        },
    )
    result = judge(
        root, load_contracts(root), load_features(root), PytestRun(exit_code=4, report=None, output="usage error")
    )
    assert not result.passed
    assert result.reasons[0] == "pytest exited with status 4 without reporting any result"
    row = next(line for line in render_markdown(result).splitlines() if line.startswith("| DEMO-001 |"))
    assert "Pipes \\| in a statement" in row
    assert row.endswith("| failed |")
    assert [problem.kind for problem in result.problems] == ["test_collection_failed"]


def test_a_report_without_collected_tests_leaves_every_scenario_unbound(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        {
            "contracts/demo.yaml": VALID_CONTRACT,
            "features/demo.feature": "Feature: F\n  @DEMO-001\n  Scenario: S\n    Given x\n",
        },
    )
    run = PytestRun(exit_code=5, report=PytestReport(exit_status=5))
    result = judge(root, load_contracts(root), load_features(root), run)
    assert result.reasons[:2] == ["pytest collected no tests", "pytest exited with status 5"]
    assert result.contracts[0].scenarios[0].result == "unbound"


def test_this_repository_validates_cleanly_for_the_gate_contracts() -> None:
    # The gate's scenarios are bound in tests/gate/, so collecting that is enough to judge them
    # (the gate in tools/test judges the whole repository after the suite). tests/gate uses neither
    # hypothesis nor anyio, whose autoloaded plugins cost ~2 s of CPU on every nested start.
    contracts, features = load_contracts(REPO_ROOT), load_features(REPO_ROOT)
    unused_plugins = ["-p", "no:hypothesispytest", "-p", "no:anyio"]
    pytest_run = run_pytest(REPO_ROOT, [*unused_plugins, "tests/gate"], collect_only=True)
    problems = find_gaps(REPO_ROOT, contracts, features, pytest_run)
    gate_ids = {contract.id for contract in contracts.contracts if contract.owner == "gate"}
    assert len(gate_ids) >= 14
    gate_files = ("contracts/gate.yaml", "features/gate_", "tests/gate/")
    own_problems = [
        problem.render()
        for problem in problems
        if problem.path.startswith(gate_files) or any(contract_id in problem.message for contract_id in gate_ids)
    ]
    assert own_problems == []


def test_readable_node_ids_undo_only_pytests_escapes_of_printable_non_ascii() -> None:
    escaped = "tests/t.py::test_words[\\u8bf7\\u7528-\\xe9-\\\\u7528-\\n-\\x07-\\U0001f600]"
    assert readable_node_id(escaped) == "tests/t.py::test_words[请用-é-\\\\u7528-\\n-\\x07-😀]"


def test_report_paths_given_to_pytest_win_in_either_spelling(tmp_path: Path) -> None:
    extra, reports = ci_report_args(tmp_path, tmp_path / "out", ["-x", "--junit-xml", "a/j.xml"])
    assert extra == [f"--cucumberjson={(tmp_path / 'out' / 'cucumber.json').resolve()}"]
    assert reports.junit_xml == (tmp_path / "a" / "j.xml").resolve()
    extra, reports = ci_report_args(tmp_path, tmp_path / "out", ["--cucumber-json=c.json", "--junitxml=j.xml"])
    assert extra == []
    assert (reports.junit_xml.name, reports.cucumber_json.name) == ("j.xml", "c.json")
