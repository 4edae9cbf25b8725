"""Binds features/docs_site.feature: the documentation site builds offline, and its recipes validate."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from pytest_bdd import given, parsers, scenarios, then, when

from tests.docs.doc_examples import Findings, check_examples, documentation_pages, verity_command
from tests.docs.site_build import build_site, built_page, nav_pages, outside_loads

scenarios("docs_site.feature")

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def case() -> dict:
    return {}


def _copy_docs(tmp_path: Path) -> Path:
    """mkdocs.yml and docs/ in a scratch directory, to be broken there."""
    root = tmp_path / "copy"
    shutil.copytree(REPO / "docs", root / "docs")
    shutil.copy(REPO / "mkdocs.yml", root / "mkdocs.yml")
    return root


def _link_from_quick_start(root: Path, target: str) -> None:
    page = root / "docs" / "quickstart.md"
    page.write_text(page.read_text(encoding="utf-8") + f"\nSee [this]({target}).\n", encoding="utf-8")


# --- DOCS-001: the site ---


@given("the repository's mkdocs.yml and docs/")
def the_repository(case: dict) -> None:
    case["root"] = REPO


@given("a copy of the docs with a page that the nav does not list")
def copy_with_orphan(case: dict, tmp_path: Path) -> None:
    case["root"] = _copy_docs(tmp_path)
    (case["root"] / "docs" / "orphan.md").write_text("# Orphan\n\nNo nav entry names this page.\n", encoding="utf-8")


@given(parsers.parse('a copy of the docs whose quick start links to "{target}"'))
def copy_with_link(case: dict, tmp_path: Path, target: str) -> None:
    case["root"] = _copy_docs(tmp_path)
    _link_from_quick_start(case["root"], target)


@when("the site is built with mkdocs build --strict in a network namespace with no network")
def build_offline(case: dict, tmp_path: Path) -> None:
    case["site"] = tmp_path / "site"
    case["build"] = build_site(case["root"] / "mkdocs.yml", case["site"], without_network=True)


@when("the copy is built with mkdocs build --strict")
def build_copy(case: dict, tmp_path: Path) -> None:
    case["site"] = tmp_path / "site"
    case["build"] = build_site(case["root"] / "mkdocs.yml", case["site"], without_network=False)


@then("the build succeeds")
def build_succeeds(case: dict) -> None:
    build: subprocess.CompletedProcess[str] = case["build"]
    assert build.returncode == 0, f"mkdocs build --strict failed ({build.returncode}):\n{build.stderr[-4000:]}"
    assert "WARNING" not in build.stderr, build.stderr[-4000:]


@then("every page of the nav is built")
def every_nav_page_built(case: dict) -> None:
    pages = nav_pages(case["root"] / "mkdocs.yml")
    listed = {str(path.relative_to(case["root"] / "docs")) for path in (case["root"] / "docs").rglob("*.md")}
    assert set(pages) == listed, f"pages not in the nav: {sorted(listed - set(pages))}; nav entries without a page: {sorted(set(pages) - listed)}"
    missing = [page for page in pages if not built_page(case["site"], page).is_file()]
    assert not missing, f"nav pages not built: {missing}"


@then("no built page loads anything from outside the site")
def nothing_from_outside(case: dict) -> None:
    assert built_page(case["site"], "index.md").is_file()
    loads = outside_loads(case["site"])
    assert not loads, "built pages load from other hosts:\n" + "\n".join(loads[:20])


@then(parsers.parse('the build fails naming "{name}"'))
def build_fails(case: dict, name: str) -> None:
    build: subprocess.CompletedProcess[str] = case["build"]
    assert build.returncode != 0, f"the build passed despite the mistake:\n{build.stderr[-2000:]}"
    warnings = [line for line in build.stderr.splitlines() if "WARNING" in line or line.startswith("  - ")]
    assert any(name in line for line in warnings), f"no warning names {name!r}:\n{build.stderr[-3000:]}"


# --- DOCS-002: the recipe examples ---


@given("the YAML blocks of README.md and docs/")
def repository_pages(case: dict) -> None:
    case["root"] = REPO
    case["pages"] = documentation_pages(REPO)


@given("a doc page whose recipe example misspells a key on the page's line 9")
def page_with_bad_example(case: dict, tmp_path: Path) -> None:
    page = tmp_path / "bad-example.md"
    page.write_text(
        "# A page\n"
        "\n"
        "```yaml\n"
        "name: misspelt\n"
        "goal: read the page\n"
        "target: {start_url: 'http://127.0.0.1:8000/'}\n"
        "plan:\n"
        "  - navigate: '{start_url}'\n"
        "  - verify: [{text_include: Hello}]\n"  # line 9: text_includes misspelt
        "```\n",
        encoding="utf-8",
    )
    case["root"], case["pages"] = tmp_path, [page]


@given("a doc page with an unmarked list of plan steps and a marked fragment")
def page_with_fragments(case: dict, tmp_path: Path) -> None:
    page = tmp_path / "fragments.md"
    page.write_text(
        "# Steps\n"
        "\n"
        "- A list item holds an indented block:\n"
        "\n"
        "  ```yaml\n"
        "  plan:\n"  # line 6: no name, goal or target
        "    - navigate: '{start_url}'\n"
        "  ```\n"
        "\n"
        "```yaml\n"
        "# fragment: the inputs of a recipe\n"
        "inputs:\n"
        "  api_key: {secret: true}\n"
        "```\n",
        encoding="utf-8",
    )
    case["root"], case["pages"] = tmp_path, [page]


@when("the examples are validated with verity recipe validate")
def validate_examples(case: dict) -> None:
    case["findings"] = check_examples(case["pages"], verity_command())


@then("every recipe example is valid")
def examples_valid(case: dict) -> None:
    findings: Findings = case["findings"]
    report = [f"{problem.where(case['root'])}: {problem.message} [{problem.code}]" for problem in findings.problems]
    assert not report, "documentation examples that do not validate:\n" + "\n".join(report)
    # The rule must find examples, or it proves nothing: the docs hold well over a handful.
    assert len(findings.examples) >= 8, f"only {len(findings.examples)} recipe examples found"


@then("every fragment is marked on its first line and parses as YAML")
def fragments_marked(case: dict) -> None:
    findings: Findings = case["findings"]
    for block in findings.fragments:
        assert block.text.lstrip("\n").startswith("# fragment"), f"{block.page}:{block.first_line}"
    assert not [problem for problem in findings.problems if problem.code == "fragment_not_yaml"]


@then("the quick start's first recipe is among the examples")
def first_recipe_checked(case: dict) -> None:
    findings: Findings = case["findings"]
    checked = {(block.page.name, block.text) for block in findings.examples}
    first = [text for page, text in checked if page == "quickstart.md" and "name: first-recipe" in text]
    assert first, "the quick start's first recipe was not validated"
    assert ("README.md", first[0]) in checked, "the README's first recipe is not the quick start's"


@then(parsers.parse('the page\'s example is reported at "{where}" with "{code}"'))
def reported_at(case: dict, where: str, code: str) -> None:
    findings: Findings = case["findings"]
    places = [(problem.where(case["root"]), problem.code) for problem in findings.problems]
    assert any(place.startswith(f"{where}:") and found == code for place, found in places), places


@then(parsers.parse('the unmarked block is reported at its page\'s line with "{code}"'))
def unmarked_reported(case: dict, code: str) -> None:
    findings: Findings = case["findings"]
    assert [block.first_line for block in findings.examples] == [6]
    places = {(problem.where(case["root"]), problem.code) for problem in findings.problems}
    assert ("fragments.md:6:3", code) in places, places


@then("the marked fragment is counted as a fragment, not validated")
def fragment_counted(case: dict) -> None:
    findings: Findings = case["findings"]
    assert [block.first_line for block in findings.fragments] == [11]
    assert all(problem.line < 10 for problem in findings.problems), findings.problems
