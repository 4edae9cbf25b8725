"""Actions on real pages: navigation status, act/wait/extract/verify, preparation, seed 003 catalog."""

from __future__ import annotations

import socket
from pathlib import Path

from pytest_bdd import given, parsers, scenarios, then, when

from tests.browser.harness import SessionHarness, last, page_text, remember
from runtime.artifacts import ArtifactStore
from runtime.browser import Action, Browser, SessionPolicy, Target, open_session
from tests.fixtures.site_server import FixtureSite

scenarios("browser_actions.feature")


@then(parsers.parse("the reported status is {status:d}"))
def _status(harness: SessionHarness, status: int) -> None:
    assert last(harness).data["status"] == status


@then(parsers.parse('the reported page is "{path}" titled "{title}"'))
def _reported_page(harness: SessionHarness, site: FixtureSite, path: str, title: str) -> None:
    data = last(harness).data
    assert (data["url"], data["title"]) == (site.url(path), title), data


@when("I open a URL on a port nobody listens on")
def _refused(harness: SessionHarness) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago and has no listener
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    remember(harness, harness.run(harness.session.open_url(f"http://127.0.0.1:{port}/")))


def _target(kind: str, value: str) -> dict[str, str]:
    return {kind: value}


@when(parsers.re(r'I type "(?P<text>[^"]*)" into the element with role "(?P<role>[^"]*)" and name "(?P<name>[^"]*)"'))
def _type_role(harness: SessionHarness, text: str, role: str, name: str) -> None:
    result = remember(harness, harness.run(harness.session.type_text({"role": role, "name": name}, text)))
    assert result.ok, result.error


@when(parsers.re(r'I type "(?P<text>[^"]*)" into the element with (?P<kind>css|xpath|text) "(?P<value>[^"]*)"(?P<submit> and submit)?$'))
def _type_by(harness: SessionHarness, text: str, kind: str, value: str, submit: str | None) -> None:
    result = remember(harness, harness.run(
        harness.session.type_text(_target(kind, value), text, submit=bool(submit))))
    assert result.ok, result.error


@when(parsers.re(r'I select "(?P<label>[^"]*)" in the element with (?P<kind>css|xpath) "(?P<value>[^"]*)"'))
def _select(harness: SessionHarness, label: str, kind: str, value: str) -> None:
    result = remember(harness, harness.run(harness.session.select(_target(kind, value), label=label)))
    assert result.ok, result.error


@when(parsers.parse('I press "{key}" in the element with role "{role}" and name "{name}"'))
def _press(harness: SessionHarness, key: str, role: str, name: str) -> None:
    result = remember(harness, harness.run(harness.session.press(key, target={"role": role, "name": name})))
    assert result.ok, result.error


@when(parsers.parse("I scroll down by {amount:d} pixels"))
def _scroll(harness: SessionHarness, amount: int) -> None:
    result = remember(harness, harness.run(harness.session.scroll(direction="down", amount=amount)))
    assert result.ok, result.error


@then(parsers.parse("the window is scrolled down by at least {amount:d} pixels"))
def _scrolled(harness: SessionHarness, amount: int) -> None:
    assert last(harness).data["scroll_y"] >= amount


@when(parsers.parse('I wait for the url to contain "{fragment}"'))
def _wait_url(harness: SessionHarness, fragment: str) -> None:
    remember(harness, harness.run(harness.session.wait("url", fragment, timeout_ms=5000)))


@when(parsers.parse('I wait for the text "{text}" for at most {ms:d} ms'))
def _wait_text_bounded(harness: SessionHarness, text: str, ms: int) -> None:
    remember(harness, harness.run(harness.session.wait("text_includes", text, timeout_ms=ms)))


@when(parsers.parse('I wait for the text "{text}"'))
def _wait_text(harness: SessionHarness, text: str) -> None:
    remember(harness, harness.run(harness.session.wait("text_includes", text, timeout_ms=5000)))


@when("I extract the heading text, the link targets and a missing field")
def _extract(harness: SessionHarness) -> None:
    fields = {
        "heading": "h1",
        "links": {"selector": "a", "attr": "href", "all": True},
        "price": {"selector": ".price"},
    }
    result = remember(harness, harness.run(harness.session.extract(fields)))
    assert result.ok, result.error


@when(parsers.re(
    r'I extract fields by ref "(?P<label>[^"]*)", by role "(?P<role>[^"]*)" and name "(?P<name>[^"]*)" with attribute '
    r'"(?P<attr>[^"]*)", by text "(?P<text>[^"]*)", by XPath "(?P<xpath>[^"]*)" and a missing one by role '
    r'"(?P<missing_role>[^"]*)" and name "(?P<missing_name>[^"]*)"'
))
def _extract_by_targets(harness: SessionHarness, label: str, role: str, name: str, attr: str, text: str, xpath: str,
                        missing_role: str, missing_name: str) -> None:
    fields = {
        "by_ref": {"target": harness.results[f"ref:{label}"]},
        "by_role": {"target": {"role": role, "name": name}, "attr": attr},
        "by_text": {"target": {"text": text}},
        "by_xpath": {"target": {"xpath": xpath}},
        "missing": {"target": {"role": missing_role, "name": missing_name}},
    }
    result = remember(harness, harness.run(harness.session.extract(fields)))
    assert result.ok, result.error


@when(parsers.parse('I extract every "{selector}" and the one "{single}"'))
def _extract_all_and_first(harness: SessionHarness, selector: str, single: str) -> None:
    remember(harness, harness.run(harness.session.extract({"all": {"selector": selector, "all": True}, "first": single})))


@then(parsers.parse('extract read "{first}" and "{second}" for every price, and "{one}" for the first'))
def _extracted_all_and_first(harness: SessionHarness, first: str, second: str, one: str) -> None:
    assert last(harness).data["fields"] == {"all": [first, second], "first": one}, last(harness).data


@when(parsers.parse('I extract the field "{field}" by ref "{label}"'))
def _extract_by_ref(harness: SessionHarness, field: str, label: str) -> None:
    remember(harness, harness.run(harness.session.extract({field: {"target": {"ref": harness.results[f"ref:{label}"]}}})))


@then(parsers.parse('the extracted "{name}" is "{value}"'))
def _extracted_is(harness: SessionHarness, name: str, value: str) -> None:
    assert last(harness).data["fields"][name] == value


@then(parsers.parse('the extracted "{name}" include "{value}"'))
def _extracted_include(harness: SessionHarness, name: str, value: str) -> None:
    assert value in last(harness).data["fields"][name]


@then(parsers.parse('the extraction lists "{name}" as missing'))
def _extracted_missing(harness: SessionHarness, name: str) -> None:
    assert last(harness).data["missing"] == [name]


@given("I take the page fingerprint")
@when("I take the page fingerprint again")
def _fingerprint(harness: SessionHarness) -> None:
    result = harness.run(harness.session.fingerprint())
    assert result.ok, result.error
    harness.results["previous_fingerprint"] = harness.results.get("fingerprint")
    harness.results["fingerprint"] = result.value


@then("the fingerprint did not change")
def _fingerprint_same(harness: SessionHarness) -> None:
    assert harness.results["previous_fingerprint"].digest == harness.results["fingerprint"].digest


@then("the fingerprint changed")
def _fingerprint_changed(harness: SessionHarness) -> None:
    assert harness.results["previous_fingerprint"].digest != harness.results["fingerprint"].digest


def _verify(harness: SessionHarness, check: str, **params: object) -> bool:
    result = harness.run(harness.session.verify(check, **params))
    assert result.ok, result.error
    return bool(result.data["passed"])


@then(parsers.re(r'verifying the text "(?P<text>[^"]*)" (?P<verdict>passes|fails)'))
def _verify_text(harness: SessionHarness, text: str, verdict: str) -> None:
    assert _verify(harness, "text_present", value=text) is (verdict == "passes")


@then(parsers.re(r'verifying the url contains "(?P<fragment>[^"]*)" (?P<verdict>passes|fails)'))
def _verify_url(harness: SessionHarness, fragment: str, verdict: str) -> None:
    assert _verify(harness, "url_matches", value=fragment) is (verdict == "passes")


@then(parsers.re(r'verifying that the element with css "(?P<css>[^"]*)" (?:is )?(?P<state>enabled|exists|visible) (?P<verdict>passes|fails)'))
def _verify_state(harness: SessionHarness, css: str, state: str, verdict: str) -> None:
    passed = _verify(harness, "element_state", target=Target(css=css), state=state)
    assert passed is (verdict == "passes")


@then(parsers.re(r'verifying the title includes "(?P<text>[^"]*)" (?P<verdict>passes|fails) and observes "(?P<title>[^"]*)"'))
def _verify_title(harness: SessionHarness, text: str, verdict: str, title: str) -> None:
    result = harness.run(harness.session.verify("title_includes", value=text))
    assert result.ok, result.error
    assert result.data["passed"] is (verdict == "passes") and result.data["observed"] == title


@when("I prepare the page")
def _prepare(harness: SessionHarness) -> None:
    remember(harness, harness.run(harness.session.prepare_page()))


@then(parsers.parse('the prepared page is "{path}" titled "{title}", its screenshot and text from that page'))
def _prepared_moved(harness: SessionHarness, site: FixtureSite, path: str, title: str) -> None:
    prepared = last(harness).value
    assert (prepared.url, prepared.title) == (site.url(path), title), prepared
    assert "This page was opened in another tab." in prepared.text and "moves on" not in prepared.text, prepared.text
    assert harness.artifacts.read(prepared.screenshot)[:8] == b"\x89PNG\r\n\x1a\n"


@then("the prepared page has a PNG screenshot artifact")
def _prepared_screenshot(harness: SessionHarness) -> None:
    prepared = last(harness).value
    data = harness.artifacts.read(prepared.screenshot)
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and prepared.screenshot.size == len(data)
    assert Path(prepared.screenshot.path).is_file()


@then(parsers.parse('the prepared text mentions "{text}" and comes from "{source}"'))
def _prepared_text(harness: SessionHarness, text: str, source: str) -> None:
    prepared = last(harness).value
    assert text in prepared.text and prepared.text_source == source, (prepared.text_source, prepared.text)


@then(parsers.parse('the prepared text does not mention "{text}"'))
def _prepared_not(harness: SessionHarness, text: str) -> None:
    assert text not in last(harness).value.text


@given(parsers.parse('a browser session that blocks URLs starting with "{prefix}"'), target_fixture="harness")
def _blocking_session(harness: SessionHarness, shared_browser: Browser, prefix: str, tmp_path: Path) -> SessionHarness:
    session = harness.run(open_session(
        shared_browser, artifacts=ArtifactStore(tmp_path / "blocking"), policy=SessionPolicy(blocked_url_prefixes=(prefix,))))
    return SessionHarness(harness.loop_thread, session, harness.artifacts, [])


@when(parsers.parse('I open the raw URL "{url}"'))
def _open_raw(harness: SessionHarness, url: str) -> None:
    remember(harness, harness.run(harness.session.open_url(url)))
    harness.results["blocked_page"] = harness.run(harness.session.tab().current_url())


@when("I scan the page for XPaths")
def _scan(harness: SessionHarness) -> None:
    result = remember(harness, harness.run(harness.session.xpath_scan(scope="document")))
    assert result.ok, result.error


@then(parsers.parse('the scan lists an input with XPath "{xpath}"'))
def _scan_lists(harness: SessionHarness, xpath: str) -> None:
    assert any(e["xpath"] == xpath and e["tag"] == "input" for e in last(harness).data["elements"])


@when(parsers.parse('I perform "{name}" with xpath "{xpath}" and text "{text}"'))
@when(parsers.parse('I perform "{name}" with xpath "{xpath}"'))
def _perform_xpath(harness: SessionHarness, name: str, xpath: str, text: str | None = None) -> None:
    params = {"xpath": xpath} if text is None else {"xpath": xpath, "text": text}
    action = Action(name=name, action_id=f"{name}-{len(harness.results)}", params=params)
    result = remember(harness, harness.run(harness.session.perform(action)))
    assert result.ok, result.error


@when(parsers.parse('I perform "{name}" without params'))
def _perform_plain(harness: SessionHarness, name: str) -> None:
    result = remember(harness, harness.run(harness.session.perform(Action(name=name, action_id=f"{name}-x"))))
    assert result.ok, result.error


@then(parsers.parse('the result holds an "{kind}" artifact containing "{text}"'))
def _artifact_contains(harness: SessionHarness, kind: str, text: str) -> None:
    artifact = last(harness).data["artifact"]
    assert artifact["kind"] == kind
    assert text in harness.artifacts.read(artifact["id"]).decode("utf-8")


@then(parsers.parse('the result holds a "{kind}" artifact'))
def _artifact(harness: SessionHarness, kind: str) -> None:
    artifact = last(harness).data["artifact"]
    assert artifact["kind"] == kind and harness.artifacts.read(artifact["id"])[:4] == b"\x89PNG"


def test_page_text_helper_reads_the_primary_tab(harness: SessionHarness, site: FixtureSite) -> None:
    harness.run(harness.session.open_url(site.url("/index.html")))
    assert "Fixture site" in page_text(harness)


@then(parsers.parse('the tab still shows "{url}"'))
def _still_blank(harness: SessionHarness, url: str) -> None:
    assert harness.results["blocked_page"] == url


@then(parsers.parse('the error says it is covered by "{covering}"'))
def _covered_by(harness: SessionHarness, covering: str) -> None:
    error = last(harness).error
    assert error is not None and error.details.get("covered_by") == covering, error
    assert covering in error.message


@when(parsers.parse('I extract the field "{field}" with the selector "{selector}"'))
def _extract_by_selector(harness: SessionHarness, field: str, selector: str) -> None:
    remember(harness, harness.run(harness.session.extract({field: {"selector": selector}})))


@when(parsers.parse('I extract every match of the selector "{selector}" as the field "{field}"'))
def _extract_every_match(harness: SessionHarness, selector: str, field: str) -> None:
    remember(harness, harness.run(harness.session.extract({field: {"selector": selector, "all": True}})))


@then(parsers.parse('the error names the selector "{selector}"'))
def _error_names_selector(harness: SessionHarness, selector: str) -> None:
    error = last(harness).error
    assert error is not None and selector in error.message and "SyntaxError" in error.message, error
