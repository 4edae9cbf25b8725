"""The order desk on loopback in several versions (the TimeWarp idea: one task, one site, changed
between runs), and the scripted model's moves on it, for the action cache's tests.

Versions of /desk:
- `first`: "Save order" places the order.
- `renamed`: "Save order" now saves a draft (an effect of its own, so the click's own proof
  holds), and "Confirm order", where the old button was, places the order.
- `moved`: the Customer field, its label unchanged, moved into a "Customer details" panel that is
  closed until its button opens it.
- `interstitial`: /desk is a notice whose "Continue to the desk" link leads to the first desk at
  /desk/form.
- `relabelled`: "Customer" now labels a customer lookup field that the order never reads; the
  order's own field is "Name on the order". A path that types into "Customer" acts on the wrong
  field, and every act's own proof still holds.
"""

from __future__ import annotations

import re
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any

from runtime.demo.loopback import LoopbackSite
from runtime.events import StepFinished
from runtime.secrets import marker
from tests.fixtures.gemini_server import GeminiServer, RecordedRequest, ScriptedReply, function_call_reply

if TYPE_CHECKING:
    from runtime.store.action_cache import SqliteActionCache
    from tests.execute.conftest import ExecRunner, RunRecord

PIN = "1357"

_CUSTOMER = '<label>Customer <input id="customer" type="text" autocomplete="off"></label>'
_PIN = '<label>PIN <input id="pin" type="password"></label>'
_SAVE = '<button id="place">Save order</button> <button id="print">Print</button>'
_FORMS = {
    "first": f"{_CUSTOMER}\n{_PIN}\n{_SAVE}",
    "renamed": f'{_CUSTOMER}\n{_PIN}\n<button id="draft">Save order</button> <button id="place">Confirm order</button>',
    "moved": f'{_PIN}\n<button id="more">Customer details</button>\n<section id="details" hidden>{_CUSTOMER}</section>\n{_SAVE}',
    "relabelled": (
        '<label>Customer <input id="lookup" type="text" autocomplete="off"></label>\n'
        f'<label>Name on the order <input id="customer" type="text" autocomplete="off"></label>\n{_PIN}\n{_SAVE}'
    ),
}
_NOTICE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Before you continue</title></head><body>
<h1>Before you continue</h1>
<p>The desk's terms changed on Monday.</p>
<a href="/desk/form">Continue to the desk</a>
</body></html>"""
_DESK = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Order desk</title></head><body>
<h1>Order desk</h1>
%s
<p id="status"></p>
<script>
  const status = document.getElementById('status');
  const name = () => document.getElementById('customer').value;
  const right = () => document.getElementById('pin').value === '%s';
  const on = (id, act) => { const button = document.getElementById(id); if (button) button.addEventListener('click', act); };
  on('place', () => {
    status.textContent = !name() ? 'Enter the name on the order' : right() ? 'Order placed for ' + name() : 'Wrong PIN';
  });
  on('draft', () => { status.textContent = 'Draft saved for ' + name(); });
  on('print', () => { status.textContent = 'Printing'; });
  on('more', () => { document.getElementById('details').hidden = false; });
</script></body></html>"""


class OrderDesk(LoopbackSite):
    """The desk at /desk, in the version `version` names (a test changes it between runs)."""

    thread_name = "order-desk"
    version = "first"

    def __init__(self) -> None:
        desk = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
                pass

            def do_GET(self) -> None:  # noqa: N802 - stdlib name
                body = desk.page(self.path)
                self.send_response(404 if body is None else 200)
                payload = (body or "not here").encode()
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        super().__init__(handler=Handler)

    def page(self, path: str) -> str | None:
        interstitial = self.version == "interstitial"
        if path == "/desk":
            return _NOTICE if interstitial else _DESK % (_FORMS[self.version], PIN)
        if path == "/desk/form" and interstitial:
            return _DESK % (_FORMS["first"], PIN)
        return None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def ref_of(request: RecordedRequest, role: str, name: str) -> str:
    """The ref the prompt's latest snapshot gives the element of this role and name."""
    refs = re.findall(re.escape(f'{role} "{name}"') + r"[^\n]*?\[ref=(s\d+:(?:f\d+)?e\d+)\]", request.system_instruction)
    assert refs, f"no {role} {name!r} in the prompt:\n{request.system_instruction}"
    return refs[-1]


def click(name: str, role: str = "button") -> Any:
    return lambda request: function_call_reply("browser_click", {"target": {"ref": ref_of(request, role, name)}})


def type_into(field: str, text: str) -> Any:
    return lambda request: function_call_reply("browser_type", {"target": {"ref": ref_of(request, "textbox", field)}, "text": text})


def close(summary: str) -> ScriptedReply:
    return function_call_reply("close", {"summary": summary})


def order_script(customer: str, button: str = "Save order", field: str = "Customer") -> list[Any]:
    """The model's order: the customer typed by its field's ref, the PIN by its label (the model
    knows it only as its marker, which typed becomes the value), the button clicked by its ref."""
    pin = function_call_reply("browser_type", {"target": "label=PIN", "text": marker("pin")})
    return [type_into(field, customer), pin, click(button), close("placed")]


def run_desk(
    runner: ExecRunner, desk: OrderDesk, cache: SqliteActionCache, gemini: GeminiServer, customer: str, switches: dict[str, str] | None = None, **start: Any
) -> RunRecord:
    """One run of the desk's recipe for `customer`; `model_calls` says how many requests it made."""
    asked = len(gemini.requests)
    record = runner.run("agent-order-desk", {"site": desk.base_url, "customer": customer, "pin": PIN}, action_cache=cache, switches=switches, **start)
    assert not gemini.script_failures, gemini.script_failures
    record.model_calls = len(gemini.requests) - asked  # type: ignore[attr-defined]
    return record


def cache_steps(record: RunRecord) -> list[StepFinished]:
    return [s for s in record.steps() if s.step_kind == "agent.cache"]



# The customer of the live smoke scenario (features/live_smoke.feature), whose order a scripted
# model places when the live gate's test plays the model.
LIVE_CUSTOMER = "Ada Lovelace"
