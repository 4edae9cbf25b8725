"""Binds features/browser_tree.feature: the accessibility tree a model reads, on real Chromium."""

from __future__ import annotations

import re

from pytest_bdd import parsers, scenarios, then, when

from runtime.browser import FoundNodes, SnapshotTree
from tests.browser.harness import SessionHarness, remember

scenarios("browser_tree.feature")

REF = re.compile(r" \[ref=([^\]]+)\]")


def _trees(harness: SessionHarness) -> list[SnapshotTree]:
    return harness.results.setdefault("trees", [])


def _tree(harness: SessionHarness, **params: object) -> SnapshotTree:
    result = remember(harness, harness.run(harness.session.snapshot_tree(**params)))  # type: ignore[arg-type]
    assert result.ok, result.error
    tree: SnapshotTree = result.value
    assert result.data["rendered"].startswith(tree.text)
    _trees(harness).append(tree)
    return tree


def _ref_of(tree: SnapshotTree, line: str) -> str:
    for written in tree.lines:
        bare = REF.sub("", written).strip()
        if bare.removeprefix("- ").split(":")[0].rstrip() == line.removeprefix("- ") or bare.startswith(f"- {line}"):
            found = REF.search(written)
            assert found, written
            return found.group(1)
    raise AssertionError(f"no line {line!r} in the tree:\n{tree.text}")


@when("I take a tree snapshot")
def _take(harness: SessionHarness) -> None:
    _tree(harness)


@when(parsers.parse("I take a tree snapshot of depth {depth:d}"))
def _take_depth(harness: SessionHarness, depth: int) -> None:
    _tree(harness, depth=depth)


@when(parsers.parse("I take a tree snapshot within {chars:d} characters"))
def _take_within(harness: SessionHarness, chars: int) -> None:
    _tree(harness, max_chars=chars)
    harness.results["max_chars"] = chars


@when(parsers.parse("I show the tree under the ref of its line '{line}'"))
def _under(harness: SessionHarness, line: str) -> None:
    _tree(harness, ref=_ref_of(_trees(harness)[-1], line))


@then("the tree holds these lines, refs aside:")
def _holds(harness: SessionHarness, docstring: str) -> None:
    written = [REF.sub("", line) for line in _trees(harness)[-1].lines]
    wanted = docstring.splitlines()
    # The expected lines appear in this order, each at its indentation relative to the first.
    first = next(i for i, line in enumerate(written) if line.strip() == wanted[0].strip())
    base = len(written[first]) - len(written[first].lstrip()) - (len(wanted[0]) - len(wanted[0].lstrip()))
    at = first
    for line in wanted:
        target = " " * base + line
        while at < len(written) and written[at] != target:
            at += 1
        assert at < len(written), f"no line {target!r} in order in the tree:\n" + "\n".join(written)


@then("every element line of the tree has a ref of the tree's snapshot")
def _every_ref(harness: SessionHarness) -> None:
    tree = _trees(harness)[-1]
    for line in tree.lines:
        if line.lstrip().startswith(("- text:", "- option ", "- …")):
            continue
        found = REF.search(line)
        assert found and found.group(1).startswith(f"{tree.snapshot_id}:"), line


@when(parsers.parse("I click the ref of the tree line '{line}'"))
def _click_line(harness: SessionHarness, line: str) -> None:
    remember(harness, harness.run(harness.session.click(_ref_of(_trees(harness)[-1], line))))


@when(parsers.parse("I click the ref of the older tree's line '{line}'"))
def _click_older(harness: SessionHarness, line: str) -> None:
    older, latest = _trees(harness)[-2:]
    assert older.snapshot_id != latest.snapshot_id
    remember(harness, harness.run(harness.session.click(_ref_of(older, line))))


@then(parsers.parse("the ref of the tree line '{line}' names the tab's second frame"))
def _frame_ref(harness: SessionHarness, line: str) -> None:
    tree = _trees(harness)[-1]
    assert re.fullmatch(rf"{tree.snapshot_id}:f1e\d+", _ref_of(tree, line))


@then(parsers.parse("the tree holds none of {texts}"))
def _none_of(harness: SessionHarness, texts: str) -> None:
    text = _trees(harness)[-1].text
    for decoy in re.findall(r'"([^"]*)"', texts):
        assert decoy.lower() not in text.lower(), f"{decoy!r} reached the tree:\n{text}"
    assert "Order form" in text


def _find(harness: SessionHarness, text: str, limit: int | None = None) -> FoundNodes:
    result = remember(harness, harness.run(harness.session.find_nodes(text, limit=limit)))
    assert result.ok, result.error
    harness.results["found"] = result.value
    harness.results["found_rendered"] = result.data["rendered"]
    return result.value


@when(parsers.parse('I search the tree for "{text}"'))
def _search(harness: SessionHarness, text: str) -> None:
    _find(harness, text)


@when(parsers.parse('I search the tree for "{text}" listing at most {limit:d}'))
def _search_limit(harness: SessionHarness, text: str, limit: int) -> None:
    _find(harness, text, limit)


@then("the search finds nothing")
def _finds_nothing(harness: SessionHarness) -> None:
    found: FoundNodes = harness.results["found"]
    assert found.total == 0 and not found.matches, found.matches
    assert "no node" in harness.results["found_rendered"]


@then(parsers.parse('a search of the tree for "{text}" finds a paragraph inside iframe "{name}"'))
def _finds_in_frame(harness: SessionHarness, text: str, name: str) -> None:
    found = _find(harness, text)
    assert found.total == 1 and found.matches[0].startswith(f'iframe "{name}"'), found.matches
    assert re.search(r"> paragraph \[ref=s\d+:f1e\d+\]: Inner clicked$", found.matches[0]), found.matches


@then(parsers.parse("the search finds {count:d} nodes, the last a path ending in '{line}' that starts at '{first}'"))
def _finds_path(harness: SessionHarness, count: int, line: str, first: str) -> None:
    found: FoundNodes = harness.results["found"]
    assert found.total == count == len(found.matches), found.matches
    path = found.matches[-1]
    assert path.startswith(first + " [ref=") and REF.sub("", path).endswith(line), path
    harness.results["found_ref"] = REF.findall(path)[-1]


@when("I click the ref the search found")
def _click_found(harness: SessionHarness) -> None:
    remember(harness, harness.run(harness.session.click(harness.results["found_ref"])))


@then(parsers.parse("the search lists {count:d} nodes and says {more:d} more match"))
def _search_more(harness: SessionHarness, count: int, more: int) -> None:
    found: FoundNodes = harness.results["found"]
    assert len(found.matches) == count and found.total == count + more, (found.matches, found.total)
    assert f"… {more} more matches" in harness.results["found_rendered"]


@then(parsers.parse('the first tree\'s ref of \'{line}\' still resolves'))
def _first_still(harness: SessionHarness, line: str) -> None:
    first = _trees(harness)[0]
    result = harness.run(harness.session.extract(fields={"heading": {"target": _ref_of(first, line)}}))
    assert result.ok and result.data["fields"]["heading"] == "Catalogue", (result.error, result.data)


@then(parsers.parse('the tree shows rows "Order 1" to "Order 3" and then the line "{line}" naming how to see them'))
def _collapsed(harness: SessionHarness, line: str) -> None:
    tree = _trees(harness)[-1]
    text = REF.sub("", tree.text)
    assert all(f'cell "Order {n}"' in text for n in (1, 2, 3)) and 'cell "Order 4"' not in text, text
    more = next(written for written in tree.lines if line in written)
    match = re.search(r": browser_snapshot ref=(\S+) start=(\d+)$", more)
    assert match and int(match.group(2)) == 3, more
    harness.results["reach"] = (match.group(1), int(match.group(2)))


@then(parsers.parse('the tree shows all 8 textboxes "Filter 1" to "Filter 8"'))
def _all_fields(harness: SessionHarness) -> None:
    text = _trees(harness)[-1].text
    assert all(f'textbox "Filter {n}"' in text for n in range(1, 9)), text


@when("I follow the collapsed line's instruction")
def _follow(harness: SessionHarness) -> None:
    ref, start = harness.results["reach"]
    _tree(harness, ref=ref, start=start)


@then(parsers.parse('the tree shows the row "{name}" first'))
def _row_first(harness: SessionHarness, name: str) -> None:
    tree = _trees(harness)[-1]
    cells = [line for line in tree.lines if "- cell " in line]
    assert cells and f'cell "{name}"' in cells[0], tree.text
    assert tree.root and tree.snapshot_id == _trees(harness)[0].snapshot_id


@then("the tree is at most 1500 characters long and says what it left out")
def _within_budget(harness: SessionHarness) -> None:
    tree = _trees(harness)[-1]
    assert len(tree.text) <= harness.results["max_chars"], len(tree.text)
    assert re.search(r": … \(\d+ \w+|- … \d+ more", tree.text), tree.text
