"""What the driver reports about a page: snapshots with refs, observations, prepared pages,
fingerprints and verification outcomes. Plain data; the capture code lives elsewhere."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from runtime.artifacts import ArtifactRef
from runtime.browser.vocabulary.document import DocumentIdentity


@dataclass(frozen=True)
class BoundingBox:
    """CSS pixels relative to the top-level viewport at capture time (iframe offsets included)."""

    x: float
    y: float
    w: float
    h: float


@dataclass(frozen=True)
class SnapshotElement:
    """One interactive or visible element of a snapshot.

    `ref` (``s<snapshot>:e<n>``) is valid only for actions on the same tab while this snapshot is
    the tab's latest and the element is still the same connected DOM node. `frame` is "main" or
    the iframe path (e.g. "main/iframe[1]"); `in_shadow` marks elements inside open shadow roots.
    `new` is True when the element was not present in the tab's previous snapshot.
    """

    ref: str
    role: str
    name: str
    text: str
    tag: str
    bbox: BoundingBox | None
    visible: bool
    interactive: bool
    new: bool
    frame: str = "main"
    in_shadow: bool = False
    attributes: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        return out

    def describe(self) -> str:
        """A one-line rendering for prompts: ``[s3:e12] button "Save" (new)``."""
        parts = [f"[{self.ref}]", self.role or self.tag]
        if self.name:
            parts.append(f'"{self.name}"')
        elif self.text:
            parts.append(f'"{self.text}"')
        for key in ("value", "type", "href", "checked", "disabled"):
            if key in self.attributes:
                parts.append(f"{key}={self.attributes[key]!r}")
        if self.frame != "main":
            parts.append(f"frame={self.frame}")
        if self.in_shadow:
            parts.append("shadow")
        if self.new:
            parts.append("(new)")
        return " ".join(parts)


@dataclass(frozen=True)
class Snapshot:
    """One page of a snapshot of a tab: every candidate element (interactive, or visible with its
    own text) of the tab got a ref at capture; `elements` are the ones this page shows.

    `matching` elements match the page's `filters` (role, text, within; none: all
    `total_candidates`), interactive ones first; the page shows them from `start`, and
    `next_start` is where the next page of the same snapshot begins (None at the end). Asking for
    it with `snapshot_id` keeps every ref valid. `truncated` is True when the page does not show
    every matching element; `cut` says what was left out and why (e.g. "19,000 of 19,141 elements
    not on this page (max_elements=400 ...)", "iframe https://x/ out-of-process: not captured").
    `landmarks` labels the tab's landmark regions with the number of refs in each.
    """

    snapshot_id: str
    tab_id: str
    url: str
    title: str
    elements: list[SnapshotElement]
    total_candidates: int
    truncated: bool
    cut: list[str]
    capture_ms: float
    start: int = 0
    next_start: int | None = None
    matching: int = 0
    interactive_total: int = 0
    filters: dict[str, Any] = field(default_factory=dict)
    landmarks: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "snapshot_id": self.snapshot_id,
            "tab_id": self.tab_id,
            "url": self.url,
            "title": self.title,
            "elements": [e.to_dict() for e in self.elements],
            "total_candidates": self.total_candidates,
            "interactive_total": self.interactive_total,
            "matching": self.matching,
            "start": self.start,
            "next_start": self.next_start,
            "filters": dict(self.filters),
            "landmarks": list(self.landmarks),
            "truncated": self.truncated,
            "cut": list(self.cut),
            "capture_ms": round(self.capture_ms, 1),
        }

    def header_lines(self) -> list[str]:
        """What a rendered page says before its elements: the snapshot, the page, the regions."""
        header = f"snapshot {self.snapshot_id} tab={self.tab_id} url={self.url} title={self.title!r}"
        shown = len(self.elements)
        filters = " ".join(f"{key}={value!r}" for key, value in self.filters.items())
        page = (f"page: elements {self.start + 1}-{self.start + shown} of {self.matching}" if shown
                else f"page: no elements of {self.matching} from start={self.start}")
        page += f" matching {filters}" if filters else ""
        page += f"; {self.total_candidates} refs in the snapshot ({self.interactive_total} interactive, listed first)"
        if self.next_start is not None:
            page += f"; next page: start={self.next_start} snapshot_id={self.snapshot_id}"
        lines = [header, page]
        if self.landmarks:
            regions = "regions (within=...): " + "; ".join(self.landmarks)
            lines.append(regions if len(regions) <= 400 else regions[:396] + " ...")
        return lines

    def render(self, max_chars: int = 10_000) -> str:
        """Text for an LLM prompt, at most `max_chars`, saying what was cut."""
        lines = self.header_lines()
        used = sum(len(line) + 1 for line in lines)
        shown = 0
        for element in self.elements:
            line = element.describe()
            if used + len(line) + 1 > max_chars - 80:
                break
            lines.append(line)
            used += len(line) + 1
            shown += 1
        notes = list(self.cut)
        if shown < len(self.elements):
            notes.append(f"{len(self.elements) - shown} elements beyond {max_chars} chars")
        if notes:
            lines.append("[cut: " + "; ".join(notes) + "]")
        return "\n".join(lines)[:max_chars]

    def find(self, ref: str) -> SnapshotElement | None:
        for element in self.elements:
            if element.ref == ref:
                return element
        return None


@dataclass(frozen=True)
class Observation:
    """Seed 002's observe: a page summary plus a snapshot of element candidates."""

    tab_id: str
    url: str
    title: str
    text_excerpt: str
    snapshot: Snapshot

    def to_dict(self) -> dict[str, Any]:
        return {
            "tab_id": self.tab_id,
            "url": self.url,
            "title": self.title,
            "text_excerpt": self.text_excerpt,
            "snapshot": self.snapshot.to_dict(),
        }

    @staticmethod
    def head(tab_id: str, url: str, title: str, text_excerpt: str) -> str:
        """The rendered observation before its snapshot page."""
        return f"observe tab={tab_id} url={url} title={title!r}\n{text_excerpt[:2000]}\n"

    def render(self, max_chars: int = 10_000) -> str:
        head = self.head(self.tab_id, self.url, self.title, self.text_excerpt)
        return (head + self.snapshot.render(max(0, max_chars - len(head))))[:max_chars]


@dataclass(frozen=True)
class PreparedPage:
    """Seed 003's mandatory page preparation: loaded, screenshotted, reduced to readable text.

    `text_source` is "trafilatura" or "inner_text": the fallback when trafilatura finds no main
    content (it finds none on small pages), and the text of a page whose HTML is larger than the
    session's `readable_html_limit_bytes` (`text_note` then says so, with both sizes). `text` is
    empty and `text_artifact` set when the text exceeds the inline limit (256 KB);
    `html_artifact` is set when the HTML exceeds it.
    """

    tab_id: str
    url: str
    status: int | None
    title: str
    text: str
    text_source: str
    screenshot: ArtifactRef
    html_artifact: ArtifactRef | None
    text_artifact: ArtifactRef | None
    signals: PageSigns = field(default_factory=lambda: PageSigns())
    document: DocumentIdentity | None = None
    content_digest: str = ""
    text_note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "tab_id": self.tab_id,
            "url": self.url,
            "status": self.status,
            "title": self.title,
            "text": self.text,
            "text_source": self.text_source,
            "text_note": self.text_note,
            "screenshot": self.screenshot.to_dict(),
            "html_artifact": self.html_artifact.to_dict() if self.html_artifact else None,
            "text_artifact": self.text_artifact.to_dict() if self.text_artifact else None,
            "signals": self.signals.to_dict(),
            "document": self.document.to_dict() if self.document else None,
            "content_digest": self.content_digest,
        }


@dataclass(frozen=True)
class PageSigns:
    """What a page shows about itself, for blocker detection: visible h1-h3 texts in page order,
    its visible text (capped), a visible password field, a captcha widget, the layer covering it,
    and the kept headers of the response that delivered it (Retry-After, WWW-Authenticate ...)."""

    headings: tuple[str, ...] = ()
    visible_text: str = ""
    has_password_field: bool = False
    has_captcha_widget: bool = False
    headers: dict[str, str] = field(default_factory=dict)
    # How visible_text was read: "shown" (what a person can see, runtime/browser/scripts/shown.js)
    # or, on a page with more text than read.SHOWN_TEXT_LIMIT_CHARS, "inner_text".
    visible_text_source: str = "shown"
    # The layer drawn over the page, as scripts/covering_layer.js reads it, when one covers it.
    cover: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "cover": self.cover,
            "headings": list(self.headings),
            "visible_text_chars": len(self.visible_text),
            "visible_text_source": self.visible_text_source,
            "has_password_field": self.has_password_field,
            "has_captcha_widget": self.has_captcha_widget,
            "headers": dict(self.headers),
        }


@dataclass(frozen=True)
class PageFingerprint:
    """A hash of URL + DOM structure + visible text, to tell whether an act changed anything."""

    url: str
    digest: str
    element_count: int
    text_length: int
    document: DocumentIdentity | None = None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["document"] = self.document.to_dict() if self.document else None
        return out


@dataclass(frozen=True)
class VerifyOutcome:
    """Result of one verification check. `passed` is the verdict; `observed` is the evidence."""

    check: str
    passed: bool
    expected: Any
    observed: Any
    message: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# A session's tabs are named t1, t2, ... in the order it meets them, and the first is the tab it
# opens for itself: its primary until a switch_tab. A run can name it before the session opens.
PRIMARY_TAB_ID = "t1"


@dataclass(frozen=True)
class TabEvent:
    """A change to a session's tabs: one opened (a popup, target=_blank, window.open, a new tab),
    navigated (its top document shows a new URL), closed, or made the primary tab (`primary`).
    `primary_tab_id` is the session's primary tab after the change."""

    kind: str  # "opened" | "navigated" | "closed" | "primary"
    session_id: str
    tab_id: str
    url: str
    opener_tab_id: str | None = None
    primary_tab_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
