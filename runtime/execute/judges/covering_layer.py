"""A layer drawn over a page's content, as runtime/browser/scripts/covering_layer.js finds it: a
fixed layer a person meets before the page under it (it holds the viewport's centre or a quarter
of it, and covers half of it or holds the page: aria-modal, a modal dialog, the page inert,
blurred or its scrolling locked). Data only: `page_blockers` judges its words as a page's."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

EVIDENCE_TEXT_CHARS = 240


@dataclass(frozen=True)
class CoveringLayer:
    """`layers` names the covering elements (tag#id.class[role]); `share` is the part of the
    viewport's probe points they were met at; `held` says why the page is held under them."""

    layers: tuple[str, ...]
    share: float
    held: tuple[str, ...] = ()
    headings: tuple[str, ...] = ()
    text: str = ""
    has_password_field: bool = False
    has_captcha_widget: bool = False

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any] | None) -> CoveringLayer | None:
        """What covering_layer.js returned (None when no layer covers the page)."""
        if not raw:
            return None
        return cls(
            layers=tuple(str(layer) for layer in raw.get("layers") or ()),
            share=float(raw.get("share") or 0.0),
            held=tuple(str(reason) for reason in raw.get("held") or ()),
            headings=tuple(str(heading) for heading in raw.get("headings") or ()),
            text=str(raw.get("text") or ""),
            has_password_field=bool(raw.get("password")),
            has_captcha_widget=bool(raw.get("captcha")),
        )

    def named(self) -> str:
        """"div#gate over 8% of the viewport (aria-modal, page inert)": what a reason names."""
        held = f" ({', '.join(self.held)})" if self.held else ""
        return f"{', '.join(self.layers) or 'a layer'} over {self.share:.0%} of the viewport{held}"

    def evidence(self) -> dict[str, Any]:
        return {
            "layers": list(self.layers),
            "viewport_share": round(self.share, 2),
            "held": list(self.held),
            "headings": list(self.headings),
            "text": " ".join(self.text.split())[:EVIDENCE_TEXT_CHARS],
        }
