"""Which of the run's values a request carried (runtime/execute/judges/sent_data.py) and what the
run keeps of refused and delivered requests (runtime/execute/context/sent_data.py), on requests as
the tab's watch reports them; the browser runs are in test_refused_data.py."""

from __future__ import annotations

import json

from runtime.browser.tab.sent_requests import SentRequest
from runtime.execute.context.sent_data import RunSentData
from runtime.execute.judges.sent_data import carried_values, normal
from runtime.outcomes import BlockerKind
from runtime.secrets import Secrets, marker

REFUSED = BlockerKind.DOMAIN_NOT_ALLOWED


def request(url: str, body: str = "", *, method: str = "POST", kind: BlockerKind | None = REFUSED) -> SentRequest:
    return SentRequest("t1", "f1", "r1", url, method, "Fetch", body, kind, "not allowed" if kind else "", "judge" if kind else "response", 0.0)


def texts(*values: str) -> dict[str, str]:
    return {normal(value): value for value in values}


def test_a_value_is_found_in_a_form_body_json_multipart_and_a_query_however_encoded() -> None:
    typed = texts("Gold Bar 99", "abc")
    assert carried_values(request("http://x.example/c", "q=gold+bar+99&n=1"), typed) == {"gold bar 99": {"value": "Gold Bar 99", "in": "body"}}
    assert carried_values(request("http://x.example/c", json.dumps({"t": "abc"})), typed) == {"abc": {"value": "abc", "in": "body"}}
    multipart = '--b\r\nContent-Disposition: form-data; name="t"\r\n\r\nabc\r\n--b--\r\n'
    assert set(carried_values(request("http://x.example/c", multipart), typed)) == {"abc"}
    assert carried_values(request("http://x.example/c?s=GOLD%20BAR%2099", method="GET"), typed) == {"gold bar 99": {"value": "Gold Bar 99", "in": "url"}}


def test_a_short_value_counts_only_as_a_whole_field() -> None:
    typed = texts("2")
    assert carried_values(request("http://x.example/p.gif?v=20&id=123", method="GET"), typed) == {}
    assert set(carried_values(request("http://x.example/p.gif?lots=2", method="GET"), typed)) == {"2"}
    assert set(carried_values(request("http://x.example/c", json.dumps({"lots": 2})), typed)) == {"2"}


def test_a_pixel_without_the_runs_data_carries_nothing() -> None:
    assert carried_values(request("http://x.example/pixel.gif?event=submit&page=au2606", method="GET"), texts("tok-7731")) == {}
    # A value inside a longer word or number is not that value.
    assert carried_values(request("http://x.example/p.gif?cid=usd42&v=612.357", method="GET"), texts("usd", "612.35")) == {}


def test_a_secret_is_shown_by_its_marker_in_the_value_and_the_url() -> None:
    secrets = Secrets()
    name = secrets.add("token", "s3cr3t value")
    sent = RunSentData(secrets)
    sent.heard(request("http://x.example/c?k=s3cr3t%20value", method="GET"))
    [refusal] = sent.claim()
    shown = json.dumps(refusal.evidence())
    assert "s3cr3t" not in shown and refusal.url == f"http://x.example/c?k={marker(name)}", shown
    assert refusal.carried == ({"value": marker(name), "in": "url"},)
    secrets.close()


def test_a_refused_copy_of_values_an_allowed_address_received_is_not_claimed() -> None:
    sent = RunSentData(Secrets())
    sent.put("AU2606 calendar")
    sent.heard(request("http://x.example/collect?dl=http%3A%2F%2Fsite%2Fs%3Fq%3DAU2606%2Bcalendar", method="GET"))
    sent.heard(request("http://site/s?q=AU2606+calendar", method="GET", kind=None))
    assert sent.claim() == []
    sent.put("tok-7731")
    sent.heard(request("http://x.example/collect", "token=tok-7731"))
    [refusal] = sent.claim()
    assert refusal.kind is REFUSED and refusal.carried == ({"value": "tok-7731", "in": "body"},)
    assert sent.claim() == []  # claimed once
