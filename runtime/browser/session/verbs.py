"""`SessionVerbs`: the typed verbs (`open_url`, `click`, `snapshot`, ...) over `perform`.

Each verb builds one `Action` (an action id of its own unless one is given, the session's id,
params without the ones left out) and hands it to `perform`, so the verbs share its guarantees:
serial, idempotent by `action_id`, always a result.
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from dataclasses import replace
from typing import Any

from runtime.browser.vocabulary.actions import Action, ActionName, ActionResult, Target


class SessionVerbs(ABC):
    """The verbs of a session; a subclass provides `perform`."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self._auto_action_counter = itertools.count(1)

    @abstractmethod
    async def perform(self, action: Action) -> ActionResult:
        """Run one action and return its result; never raises."""

    def _auto_id(self, name: str) -> str:
        return f"{self.session_id}:{name}:{next(self._auto_action_counter)}"

    async def _do(
        self,
        name: ActionName,
        params: dict[str, Any],
        *,
        tab_id: str | None,
        action_id: str | None,
        timeout_ms: int | None,
    ) -> ActionResult:
        return await self.perform(
            Action(
                name=name.value,
                action_id=action_id or self._auto_id(name.value),
                tab_id=tab_id,
                params={k: v for k, v in params.items() if v is not None},
                timeout_ms=timeout_ms,
                session_id=self.session_id,
            )
        )

    async def start(self, url: str | None = None, *, action_id: str | None = None,
                    timeout_ms: int | None = None) -> ActionResult:
        """`session_start`: report the primary tab, navigating it to `url` when given."""
        return await self._do(ActionName.SESSION_START, {"url": url}, tab_id=None,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def open_url(self, url: str, *, tab_id: str | None = None, action_id: str | None = None,
                       timeout_ms: int | None = None) -> ActionResult:
        """`open_url`: navigate and wait for load. data: {url, status, title}. A 404 is ok=True
        with status=404 (the executor classifies it); network failures are `navigation_failed`."""
        return await self._do(ActionName.OPEN_URL, {"url": url}, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def navigate_back(self, *, tab_id: str | None = None, action_id: str | None = None,
                            timeout_ms: int | None = None) -> ActionResult:
        """`navigate_back`: the tab's previous history entry (its URL judged by the policy first),
        waited for as open_url waits. `not_found` when there is none."""
        return await self._do(ActionName.NAVIGATE_BACK, {}, tab_id=tab_id, action_id=action_id, timeout_ms=timeout_ms)

    async def wait_for_loaded(self, *, tab_id: str | None = None, action_id: str | None = None,
                              timeout_ms: int | None = None) -> ActionResult:
        """`browser_wait_for_loaded`: until document.readyState is complete."""
        return await self._do(ActionName.BROWSER_WAIT_FOR_LOADED, {}, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def screenshot(self, *, full_page: bool = False, image_type: str = "png", target: dict[str, Any] | None = None,
                         tab_id: str | None = None, action_id: str | None = None, timeout_ms: int | None = None) -> ActionResult:
        """`browser_screenshot`: the viewport, the whole page or the element `target` names, as a
        PNG or JPEG into the artifact store. data: {artifact, url, width, height, image_type}."""
        params: dict[str, Any] = {"full_page": full_page, "image_type": image_type}
        if target is not None:
            params["target"] = target
        return await self._do(ActionName.BROWSER_SCREENSHOT, params, tab_id=tab_id, action_id=action_id, timeout_ms=timeout_ms)

    async def readability_extract(self, *, tab_id: str | None = None, action_id: str | None = None,
                                  timeout_ms: int | None = None) -> ActionResult:
        """`browser_readability_extract`: readable text (trafilatura, else innerText)."""
        return await self._do(ActionName.BROWSER_READABILITY_EXTRACT, {}, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def read_links(self, navigation: str, *, served: bool = False, tab_id: str | None = None,
                         action_id: str | None = None, timeout_ms: int | None = None) -> ActionResult:
        """`read_links`: every link of the page for ranking search results (see ActionName)."""
        return await self._do(ActionName.READ_LINKS, {"navigation": navigation, "served": served}, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def xpath_scan(self, *, scope: str = "viewport", tab_id: str | None = None,
                         action_id: str | None = None, timeout_ms: int | None = None) -> ActionResult:
        """`browser_xpath_scan`: interactive elements with absolute XPaths and boxes."""
        return await self._do(ActionName.BROWSER_XPATH_SCAN, {"scope": scope}, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def get_html(self, *, xpath: str | None = None, tab_id: str | None = None,
                       action_id: str | None = None, timeout_ms: int | None = None) -> ActionResult:
        """`browser_get_html`: the page's (or one element's) HTML into the artifact store."""
        return await self._do(ActionName.BROWSER_GET_HTML, {"xpath": xpath}, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def snapshot(self, *, max_elements: int | None = None, max_chars: int | None = None,
                       start: int | None = None, role: str | list[str] | None = None, text: str | None = None,
                       within: str | None = None, snapshot_id: str | None = None,
                       tab_id: str | None = None, action_id: str | None = None,
                       timeout_ms: int | None = None) -> ActionResult:
        """`snapshot`: every element gets a ref; `result.value` (a `Snapshot`) is one page of them.
        `role`, `text` (in the name or content, any case) and `within` (a ref's subtree or a
        landmark such as 'main' or 'navigation "Docs"') filter; `start` pages (the page's
        `next_start`). With `snapshot_id` (or a `within` ref) the tab's latest snapshot is shown
        again instead of a new one taken, so its refs stay valid."""
        params = {"max_elements": max_elements, "max_chars": max_chars, "start": start, "role": role,
                  "text": text, "within": within, "snapshot_id": snapshot_id}
        return await self._do(ActionName.SNAPSHOT, params, tab_id=tab_id, action_id=action_id, timeout_ms=timeout_ms)

    async def observe(self, *, max_elements: int | None = None, max_chars: int | None = None,
                      start: int | None = None, role: str | list[str] | None = None, text: str | None = None,
                      within: str | None = None, snapshot_id: str | None = None,
                      tab_id: str | None = None, action_id: str | None = None,
                      timeout_ms: int | None = None) -> ActionResult:
        """`observe`: page summary + a snapshot page (the same paging and filters as `snapshot`).
        `result.value` is an `Observation`."""
        params = {"max_elements": max_elements, "max_chars": max_chars, "start": start, "role": role,
                  "text": text, "within": within, "snapshot_id": snapshot_id}
        return await self._do(ActionName.OBSERVE, params, tab_id=tab_id, action_id=action_id, timeout_ms=timeout_ms)

    async def snapshot_tree(self, *, ref: str | None = None, depth: int | None = None, start: int | None = None,
                            max_chars: int | None = None, keep_same: bool = False, tab_id: str | None = None,
                            action_id: str | None = None, timeout_ms: int | None = None) -> ActionResult:
        """`snapshot_tree`: the accessibility tree a model reads (`result.value`, a `SnapshotTree`).
        Without `ref` a new tree snapshot (older refs become stale; with `keep_same`, a tree that
        reads exactly as the latest of the same document keeps its id and refs); with a ref of
        the latest one, the part under it, every ref kept. `depth` levels at most; `start`: the
        root's first child shown (its runs then not collapsed); `max_chars`: the budget."""
        params = {"ref": ref, "depth": depth, "start": start, "max_chars": max_chars, "keep_same": keep_same}
        return await self._do(ActionName.SNAPSHOT_TREE, params, tab_id=tab_id, action_id=action_id, timeout_ms=timeout_ms)

    async def find_nodes(self, text: str, *, limit: int | None = None, tab_id: str | None = None,
                         action_id: str | None = None, timeout_ms: int | None = None) -> ActionResult:
        """`find_nodes`: the nodes of the latest tree snapshot whose line holds `text` (any case),
        or matches it written `/regex/flags`, each with its path (`result.value`, `FoundNodes`)."""
        return await self._do(ActionName.FIND_NODES, {"text": text, "limit": limit}, tab_id=tab_id, action_id=action_id, timeout_ms=timeout_ms)

    async def click(self, target: Target | dict[str, Any] | str, *, tab_id: str | None = None,
                    action_id: str | None = None, timeout_ms: int | None = None,
                    effect_baseline_ms: int | None = None, read_at_press: dict[str, Any] | None = None) -> ActionResult:
        """`act` kind=click on a target (ref string, `Target` or its dict form). `effect_baseline_ms`
        (every act takes it): how long the page is watched before the gesture for changes of its
        own (effects.py); 0 when nothing will ask for the act's own effect. `read_at_press` (click,
        press, drag): name -> target whose text is read the instant the gesture reaches the page;
        data.read_at_press holds what was read."""
        return await self._act("click", target, {"effect_baseline_ms": effect_baseline_ms, "read_at_press": read_at_press}, tab_id, action_id, timeout_ms)

    async def type_text(self, target: Target | dict[str, Any] | str, text: str, *, submit: bool = False,
                        clear: bool = True, keys: bool = False, key_delay_ms: int = 0,
                        tab_id: str | None = None, action_id: str | None = None,
                        timeout_ms: int | None = None, effect_baseline_ms: int | None = None) -> ActionResult:
        """`act` kind=type: replace (or append, clear=False) the field's text; Enter if submit.
        keys=True types it key by key (keydown, keypress, input, keyup for each character),
        `key_delay_ms` apart, for pages that listen to keys rather than to inserted text."""
        params = {"text": text, "submit": submit, "clear": clear, "keys": keys or None, "key_delay_ms": key_delay_ms or None,
                  "effect_baseline_ms": effect_baseline_ms}
        return await self._act("type", target, params, tab_id, action_id, timeout_ms)

    async def hover(self, target: Target | dict[str, Any] | str, *, tab_id: str | None = None,
                    action_id: str | None = None, timeout_ms: int | None = None,
                    effect_baseline_ms: int | None = None) -> ActionResult:
        """`act` kind=hover: move the pointer onto the element (a menu that opens on hover)."""
        return await self._act("hover", target, {"effect_baseline_ms": effect_baseline_ms}, tab_id, action_id, timeout_ms)

    async def drag(self, target: Target | dict[str, Any] | str, to: Target | dict[str, Any] | str, *, tab_id: str | None = None,
                   action_id: str | None = None, timeout_ms: int | None = None,
                   effect_baseline_ms: int | None = None, read_at_press: dict[str, Any] | None = None) -> ActionResult:
        """`act` kind=drag: press the mouse on `target`, move in small steps onto `to`, release there."""
        to_param = to.to_dict() if isinstance(to, Target) else to
        return await self._act("drag", target, {"to": to_param, "effect_baseline_ms": effect_baseline_ms, "read_at_press": read_at_press},
                               tab_id, action_id, timeout_ms)

    async def select_text(self, target: Target | dict[str, Any] | str, text: str = "", *, tab_id: str | None = None,
                          action_id: str | None = None, timeout_ms: int | None = None,
                          effect_baseline_ms: int | None = None) -> ActionResult:
        """`act` kind=select_text: select `text` (its first occurrence; "" all the element's text)
        by dragging the mouse over it."""
        return await self._act("select_text", target, {"text": text, "effect_baseline_ms": effect_baseline_ms}, tab_id, action_id, timeout_ms)

    async def select(self, target: Target | dict[str, Any] | str, *, value: str | None = None,
                     label: str | None = None, mode: str = "replace", tab_id: str | None = None,
                     action_id: str | None = None, timeout_ms: int | None = None,
                     effect_baseline_ms: int | None = None) -> ActionResult:
        """`act` kind=select: choose an <option> by value or visible label. `mode` replace makes it
        the only chosen option; add and remove change only it, in a <select multiple>."""
        return await self._act("select", target, {"value": value, "label": label, "mode": mode, "effect_baseline_ms": effect_baseline_ms},
                               tab_id, action_id, timeout_ms)

    async def check(self, target: Target | dict[str, Any] | str, *, checked: bool = True, tab_id: str | None = None,
                    action_id: str | None = None, timeout_ms: int | None = None,
                    effect_baseline_ms: int | None = None) -> ActionResult:
        """`act` kind=check (or uncheck, `checked=False`): click the checkbox, radio or switch only
        when it is not in that state yet; fails unless it is afterwards. data.already: no press."""
        return await self._act("check" if checked else "uncheck", target, {"effect_baseline_ms": effect_baseline_ms}, tab_id, action_id, timeout_ms)

    async def upload(self, target: Target | dict[str, Any] | str, files: list[str], *, tab_id: str | None = None,
                     action_id: str | None = None, timeout_ms: int | None = None,
                     effect_baseline_ms: int | None = None) -> ActionResult:
        """`act` kind=upload: the file input (or its label's) gets the files at these paths, which
        the caller has already allowed; fails unless it holds exactly them afterwards."""
        return await self._act("upload", target, {"files": list(files), "effect_baseline_ms": effect_baseline_ms}, tab_id, action_id, timeout_ms)

    async def press(self, key: str, *, target: Target | dict[str, Any] | str | None = None,
                    tab_id: str | None = None, action_id: str | None = None,
                    timeout_ms: int | None = None, effect_baseline_ms: int | None = None,
                    read_at_press: dict[str, Any] | None = None) -> ActionResult:
        """`act` kind=press: a key like "Enter", "Tab", "ArrowDown" (focusing `target` first)."""
        return await self._act("press", target, {"key": key, "effect_baseline_ms": effect_baseline_ms, "read_at_press": read_at_press},
                               tab_id, action_id, timeout_ms)

    async def scroll(self, *, direction: str = "down", amount: int = 600,
                     target: Target | dict[str, Any] | str | None = None, tab_id: str | None = None,
                     action_id: str | None = None, timeout_ms: int | None = None,
                     effect_baseline_ms: int | None = None) -> ActionResult:
        """`act` kind=scroll: the window by `amount` px, or `target` into view."""
        return await self._act("scroll", target, {"direction": direction, "amount": amount, "effect_baseline_ms": effect_baseline_ms},
                               tab_id, action_id, timeout_ms)

    async def _act(self, kind: str, target: Target | dict[str, Any] | str | None, params: dict[str, Any],
                   tab_id: str | None, action_id: str | None, timeout_ms: int | None) -> ActionResult:
        target_param = target.to_dict() if isinstance(target, Target) else target
        return await self._do(ActionName.ACT, {"kind": kind, "target": target_param, **params},
                              tab_id=tab_id, action_id=action_id, timeout_ms=timeout_ms)

    async def wait(self, kind: str, value: str | int | None = None, *, regex: bool = False,
                   tab_id: str | None = None, action_id: str | None = None,
                   timeout_ms: int | None = None) -> ActionResult:
        """`wait`: kind load | text_includes (value=text) | url (value=substring, or regex) |
        timeout (value=ms). Ends with `timeout` when the condition is not met in time."""
        return await self._do(ActionName.WAIT, {"kind": kind, "value": value, "regex": regex or None},
                              tab_id=tab_id, action_id=action_id, timeout_ms=timeout_ms)

    async def extract(self, fields: dict[str, Any] | None = None, *, readable: bool = False, fingerprint: bool = False,
                      signs_unless: str | None = None, tab_id: str | None = None, action_id: str | None = None,
                      timeout_ms: int | None = None) -> ActionResult:
        """`extract`: fields {name: {selector | target, attr?, all?}} -> {fields, missing}, or readable
        text. `target` is any target `click` accepts (ref, role+name, text, css, xpath); a field
        nothing matches is None and listed in `missing`; a stale ref fails the action. With
        `fingerprint`, data.fingerprint is the page fingerprint of the document read, and when its
        digest is not `signs_unless`, data.signs what the page shows about itself (PageSigns)."""
        params = {"fields": fields, "readable": readable or None, "fingerprint": fingerprint or None, "signs_unless": signs_unless}
        return await self._do(ActionName.EXTRACT, params,
                              tab_id=tab_id, action_id=action_id, timeout_ms=timeout_ms)

    async def verify(self, check: str, *, tab_id: str | None = None, action_id: str | None = None,
                     timeout_ms: int | None = None, **params: Any) -> ActionResult:
        """`verify`: check url_matches {value, regex?, editable?: false: the URL the page is at by its
        own doing, not where an agent's model's own script moved it} | text_present {value, editable?: false
        leaves out contenteditable text, erased?: true counts text an agent's model's own script
        erased} | title_includes {value} (case-insensitive, observed = the page's own title) |
        element_state {target, state: exists|visible|enabled|checked|value, expected?, editable?:
        false: an element or value an agent's model's own script made is not the page's}.
        ok=True with data.passed telling the verdict; `result.value` is a `VerifyOutcome`."""
        target = params.get("target")
        if isinstance(target, Target):
            params["target"] = target.to_dict()
        return await self._do(ActionName.VERIFY, {"check": check, **params}, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def fingerprint(self, *, tab_id: str | None = None, action_id: str | None = None,
                          timeout_ms: int | None = None, closed_roots: bool = False) -> ActionResult:
        """`page_fingerprint`: hash of URL + DOM structure + text. `result.value` is a `PageFingerprint`.
        With `closed_roots`, a closed shadow root attached since the last read counts too (a
        DevTools search more: asked where the answer decides whether a read is kept)."""
        return await self._do(ActionName.PAGE_FINGERPRINT, {"closed_roots": True} if closed_roots else {}, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def prepare_page(self, *, tab_id: str | None = None, action_id: str | None = None,
                           timeout_ms: int | None = None) -> ActionResult:
        """`prepare_page` (seed 003, mandatory before page analysis): wait for load, screenshot,
        readable text. `result.value` is a `PreparedPage`."""
        return await self._do(ActionName.PREPARE_PAGE, {}, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def evaluate(self, script: str, *, args: dict[str, Any] | None = None, world: str = "isolated",
                       max_bytes: int | None = None, model_script: bool = False, tab_id: str | None = None,
                       action_id: str | None = None, timeout_ms: int | None = None) -> ActionResult:
        """`browser_evaluate`: run `script` (an async function body of `args`) in an isolated world
        or the page's `main` world; `model_script`: an agent's model wrote it, so what it writes
        into the document is the model's, not the page's. data: {result, world, size, url}."""
        params = {"script": script, "args": args or {}, "world": world, "max_bytes": max_bytes, "model_script": model_script}
        return await self._do(ActionName.BROWSER_EVALUATE, params, tab_id=tab_id,
                              action_id=action_id, timeout_ms=timeout_ms)

    async def close(self, summary: str | None = None, *, action_id: str | None = None) -> ActionResult:
        """`close` (seed 002): finish the browser task with a summary; stops the session."""
        return await self._do(ActionName.CLOSE, {"summary": summary}, tab_id=None,
                              action_id=action_id, timeout_ms=None)

    async def switch_tab(self, tab_id: str, *, action_id: str | None = None, timeout_ms: int | None = None) -> ActionResult:
        """`switch_tab`: make `tab_id` the primary tab, where later actions without a tab go."""
        return await self._do(ActionName.SWITCH_TAB, {}, tab_id=tab_id, action_id=action_id, timeout_ms=timeout_ms)

    async def close_tab(self, tab_id: str, *, action_id: str | None = None, timeout_ms: int | None = None) -> ActionResult:
        """`close_tab`: close `tab_id`; closing the primary tab makes its opener (else the first
        open tab) primary. The last open tab stays open (invalid_params)."""
        return await self._do(ActionName.CLOSE_TAB, {}, tab_id=tab_id, action_id=action_id, timeout_ms=timeout_ms)

    async def new_tab(self, *, action_id: str | None = None, timeout_ms: int | None = None) -> ActionResult:
        """`new_tab`: a blank tab in the session's context (behind its fence), in the background."""
        return await self._do(ActionName.NEW_TAB, {}, tab_id=None, action_id=action_id, timeout_ms=timeout_ms)


class TabVerbs(SessionVerbs):
    """A session's verbs aimed at one tab: an action that names no tab goes to `tab_id` instead
    of the primary tab, so code written against the verbs acts in that tab unchanged."""

    def __init__(self, session: SessionVerbs, tab_id: str) -> None:
        super().__init__(session.session_id)
        self.session = session
        self.tab_id = tab_id

    def _auto_id(self, name: str) -> str:
        # The session's own counter: an id of ours must never repeat one of the session's.
        return self.session._auto_id(name)

    async def perform(self, action: Action) -> ActionResult:
        return await self.session.perform(action if action.tab_id else replace(action, tab_id=self.tab_id))
