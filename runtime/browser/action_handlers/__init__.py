"""The action catalog: each action name mapped to the one handler that does it.

`BrowserSession.perform` owns ordering, timeouts and errors; a handler only does its work on the
`ActionScope` it is given and returns ``(data, typed value)`` or raises `BrowserActionError`.
The handlers live by job: navigate, wait, read, act, extract, verify.
"""

from runtime.browser.action_handlers import act, evaluate, extract, navigate, read, verify, wait
from runtime.browser.action_handlers.scope import ActionScope, Handler, Result
from runtime.browser.actions import ActionName

HANDLERS: dict[str, Handler] = {
    ActionName.SESSION_START.value: navigate.session_start,
    ActionName.SESSION_STOP.value: navigate.session_stop,
    ActionName.BROWSER_WAIT_FOR_LOADED.value: wait.wait_for_loaded,
    ActionName.BROWSER_SCREENSHOT.value: read.screenshot,
    ActionName.BROWSER_READABILITY_EXTRACT.value: read.readability_extract,
    ActionName.BROWSER_XPATH_SCAN.value: read.xpath_scan,
    ActionName.BROWSER_CLICK.value: act.browser_click,
    ActionName.BROWSER_TYPE.value: act.browser_type,
    ActionName.BROWSER_GET_HTML.value: read.get_html,
    ActionName.OPEN_URL.value: navigate.open_url,
    ActionName.NAVIGATE_BACK.value: navigate.navigate_back,
    ActionName.OBSERVE.value: read.observe,
    ActionName.SNAPSHOT.value: read.snapshot,
    ActionName.ACT.value: act.act,
    ActionName.WAIT.value: wait.wait,
    ActionName.EXTRACT.value: extract.extract,
    ActionName.CLOSE.value: navigate.close,
    ActionName.VERIFY.value: verify.verify,
    ActionName.PAGE_FINGERPRINT.value: verify.page_fingerprint,
    ActionName.PREPARE_PAGE.value: read.prepare_page,
    ActionName.BROWSER_EVALUATE.value: evaluate.browser_evaluate,
}

__all__ = ["HANDLERS", "ActionScope", "Handler", "Result"]
