"""The run's tabs as the executor sees them (seed 004: the primary tab is sticky).

A state acts in the primary tab unless its step names another (`tab: new`, `tab: primary`, or a
name a step gave with `as`): the walker resolves the state's tab before it runs (`enter`) and
goes back to the primary tab after it (`leave`); only a `switch_tab` step moves the primary tab.
A tab opened while a state whose step says `as: <name>` runs gets that name.

Each tab keeps its own `PageState`: what the run last saw there and which document passed
validation. A new tab's pages are judged like any other (its first page must pass the same
target check before anything is read from it), and a value read in a tab is kept with that
tab's validated document.

Every change the session reports (a tab opened, navigated, closed, made primary) becomes a
`TabChanged` run event that names the state running when it happened.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from runtime.browser import PRIMARY_TAB_ID, TabEvent
from runtime.browser.vocabulary.document import DocumentIdentity
from runtime.events import EventLog, TabChanged
from runtime.execute.context.network import PathRefusal
from runtime.execute.judges.target_check import PageObservation, TargetCheck
from runtime.plan.model import State
from runtime.plan.state_kinds import NEW_TAB, PRIMARY_TAB


@dataclass
class PageState:
    """What the run last saw of a tab's page (navigate, observe, a followed search result, an
    agent's open_url) and, once data.validate-target ran on it, whether it is the recipe's target."""

    observation: PageObservation | None = None
    target_check: TargetCheck | None = None
    # The document the latest passing target check judged, with its content hash then; reads
    # must come from it (reads/provenance.py). Once any check ran, an unvalidated page is never read.
    validated: DocumentIdentity | None = None
    validated_digest: str = ""
    validation_required: bool = False
    # The tab's current page path (issue 8): how many refused top-frame navigations of the tab
    # came before it began, or the run's own refusal of the URL it began with.
    path_start: int = 0
    refused_start: PathRefusal | None = None

    def saw(self, observation: PageObservation) -> None:
        """A new observation: any earlier target check was about another page."""
        self.observation = observation
        self.target_check = None

    def judge(self, check: TargetCheck) -> None:
        """The target check of the latest observation; a valid one validates its document."""
        self.target_check = check
        self.validation_required = True
        observation = self.observation
        if check.valid and observation is not None and observation.document is not None:
            self.validated, self.validated_digest = observation.document, observation.content_digest


class TabUnavailable(Exception):
    """A step names a tab the run cannot act in (none opened yet, never named, or closed)."""


class RunTabs:
    """Which tab the running state acts in, each tab's page state, the names steps gave tabs."""

    def __init__(self, events: EventLog, running_state: Callable[[], str]) -> None:
        self.events = events
        self._running_state = running_state
        self._first = PageState()  # the primary tab's, from before the session opened
        self._pages: dict[str, PageState] = {}
        self.primary = ""  # the session's primary tab; "" until the session opens
        self.acting: str | None = None  # the tab the running state acts in; None: the primary
        self.names: dict[str, str] = {}  # a step's `as` -> the tab it opened
        self.newest: str | None = None  # the tab opened most recently
        self.closed: set[str] = set()
        self._naming: str | None = None  # the running state's `as`

    def bind(self, primary_tab_id: str) -> None:
        """The session opened: its first tab is the primary one."""
        self.primary = primary_tab_id
        self._pages[primary_tab_id] = self._first

    @property
    def acting_id(self) -> str:
        """The tab the running state acts in; before the session opens, the tab it will open first."""
        return self.acting or self.primary or PRIMARY_TAB_ID

    @property
    def page(self) -> PageState:
        """The page state of the tab the running state acts in."""
        return self.page_of(self.acting_id) if self.primary else self._first

    def page_of(self, tab_id: str) -> PageState:
        page = self._pages.get(tab_id)
        if page is None:
            # Once the run validates pages at all, a tab's first page is validated like any other.
            required = any(known.validation_required for known in self._pages.values())
            page = self._pages[tab_id] = PageState(validation_required=required)
        return page

    def resolve(self, word: str | None) -> str:
        """The tab id a step's tab word names; raises `TabUnavailable` with why it cannot be used."""
        if word is None or word == PRIMARY_TAB:
            if not self.primary:
                raise TabUnavailable("the run has no browser tab yet")
            return self.primary
        if word == NEW_TAB:
            if self.newest is None:
                raise TabUnavailable("no tab has been opened yet: `new` is the tab the last step that opened one opened")
            tab_id = self.newest
        else:
            found = self.names.get(word)
            if found is None:
                raise TabUnavailable(f"no tab is named {word!r}: the step with `as: {word}` opened no tab")
            tab_id = found
        if tab_id in self.closed:
            raise TabUnavailable(f"tab {word!r} ({tab_id}) was closed")
        return tab_id

    def enter(self, state: State) -> str:
        """Act in the state's tab from now on; why it cannot, or ""."""
        self._naming = state.names_tab
        self.acting = None
        if state.tab is None or state.tab == PRIMARY_TAB:
            return ""
        try:
            self.acting = self.resolve(state.tab)
        except TabUnavailable as unavailable:
            return f"{state.id} acts in tab {state.tab!r}, but {unavailable}"
        return ""

    def leave(self) -> None:
        """The state is over: later states act in the primary tab unless they name another."""
        self.acting = None
        self._naming = None

    def name_of(self, tab_id: str) -> str:
        return next((name for name, named in self.names.items() if named == tab_id), "")

    def heard(self, event: TabEvent) -> None:
        """A session listener: keep track of the tabs, and report the change as a run event."""
        if event.kind == "opened":
            self.newest = event.tab_id
            if self._naming is not None:
                self.names[self._naming] = event.tab_id
        elif event.kind == "closed":
            self.closed.add(event.tab_id)
        if event.primary_tab_id:
            self.primary = event.primary_tab_id
        self.events.emit(
            TabChanged(
                change=event.kind,
                tab_id=event.tab_id,
                url=event.url,
                opener_tab_id=event.opener_tab_id or "",
                state_id=self._running_state(),
                primary_tab_id=self.primary,
                name=self.name_of(event.tab_id),
            )
        )
