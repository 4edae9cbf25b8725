"""The action catalog: each action name mapped to the one handler that does it.

`BrowserSession.perform` owns ordering, timeouts and errors; a handler only does its work on the
`ActionScope` it is given and returns ``(data, typed value)`` or raises `BrowserActionError`.
The handlers live by job: navigation, waiting, read, gestures (and their effects), field_reads,
checks, recipe_scripts, tabs, tree_reads (the tree a model reads).
"""

from typing import TYPE_CHECKING

from runtime.browser.action_handlers.scope import ActionScope, Handler, Result
from runtime.browser.vocabulary.actions import ActionName
from runtime.lazy_exports import LazyHandlers

if TYPE_CHECKING:
    # The handlers' modules, named for readers and the import graph (tests/architecture); each
    # is imported when one of its actions is first performed (HANDLERS).
    from runtime.browser.action_handlers import checks, field_reads, gestures, navigation, read, recipe_scripts, tabs, tree_reads, waiting  # noqa: F401

# Each action's handler as (module of this package, function). A session imports the handlers of
# the actions its run performs: a run that only reads never loads the gestures, the form
# controls or the accessibility tree a model reads (BENCHMARKS.md, "Run start").
HANDLERS: LazyHandlers[Handler] = LazyHandlers(
    __name__,
    {
        ActionName.SESSION_START.value: ("navigation", "session_start"),
        ActionName.SESSION_STOP.value: ("navigation", "session_stop"),
        ActionName.BROWSER_WAIT_FOR_LOADED.value: ("waiting", "wait_for_loaded"),
        ActionName.BROWSER_SCREENSHOT.value: ("read", "screenshot"),
        ActionName.BROWSER_READABILITY_EXTRACT.value: ("read", "readability_extract"),
        ActionName.BROWSER_XPATH_SCAN.value: ("read", "xpath_scan"),
        ActionName.BROWSER_CLICK.value: ("gestures", "browser_click"),
        ActionName.BROWSER_TYPE.value: ("gestures", "browser_type"),
        ActionName.BROWSER_GET_HTML.value: ("read", "get_html"),
        ActionName.OPEN_URL.value: ("navigation", "open_url"),
        ActionName.NAVIGATE_BACK.value: ("navigation", "navigate_back"),
        ActionName.OBSERVE.value: ("read", "observe"),
        ActionName.SNAPSHOT.value: ("read", "snapshot"),
        ActionName.ACT.value: ("gestures", "act"),
        ActionName.WAIT.value: ("waiting", "wait"),
        ActionName.EXTRACT.value: ("field_reads", "extract"),
        ActionName.CLOSE.value: ("navigation", "close"),
        ActionName.VERIFY.value: ("checks", "verify"),
        ActionName.PAGE_FINGERPRINT.value: ("checks", "page_fingerprint"),
        ActionName.READ_LINKS.value: ("read", "read_links"),
        ActionName.PREPARE_PAGE.value: ("read", "prepare_page"),
        ActionName.BROWSER_EVALUATE.value: ("recipe_scripts", "browser_evaluate"),
        ActionName.SWITCH_TAB.value: ("tabs", "switch_tab"),
        ActionName.CLOSE_TAB.value: ("tabs", "close_tab"),
        ActionName.NEW_TAB.value: ("tabs", "new_tab"),
        ActionName.SNAPSHOT_TREE.value: ("tree_reads", "snapshot_tree"),
        ActionName.FIND_NODES.value: ("tree_reads", "find_nodes"),
    },
)

__all__ = ["HANDLERS", "ActionScope", "Handler", "Result"]
