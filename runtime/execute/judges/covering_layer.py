"""A layer drawn over a page's content, as runtime/browser/scripts/covering_layer.js finds it: a
layer a person meets before the page under it (fixed, or absolute or sticky over the content, the
pointer passing through it or not; it holds the viewport's centre or a quarter of it, or lies over
a value read, and covers half of it, lies over the value or holds the page: aria-modal, a modal
dialog, the page inert, blurred or its scrolling locked). Data only: `page_blockers` judges its
words as a page's, and `dismissal` finds the control that puts it away (a popup, not a wall)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

EVIDENCE_TEXT_CHARS = 240
# The controls that put a popup away and leave the page under it to be read: a close button, "Maybe
# later", "Continue without signing in" (a sign-in or newsletter prompt sites show over content
# they serve anyone). A wall offers a way in (sign in, subscribe), never a way past. One
# alternation, matched whole against a control's name (lower-cased): compiled once, asked once.
DISMISSAL = re.compile("|".join((
    r"[x×✕✖╳]",
    r"close(?: (?:this )?(?:dialog|popup|window|message|banner))?",
    r"dismiss", r"skip(?: for now)?", r"(?:maybe|ask me|remind me) later", r"not now", r"no,? thanks?(?: you)?", r"later",
    r"continue (?:without (?:signing in|logging in|an account|registering|subscribing)|as (?:a )?guest)",
    r"keep browsing(?: as (?:a )?guest)?",
    r"关闭", r"以后再说", r"稍后再说", r"暂不登录", r"暂不", r"跳过", r"下次再说", r"閉じる", r"後で", r"今はしない",
    r"schließen", r"später", r"nein,? danke", r"fermer", r"plus tard", r"non,? merci",
    r"cerrar", r"más tarde", r"ahora no", r"no,? gracias",
)))


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
    # The names of the buttons and links it offers; the URLs of the frames in it, and of those
    # whose documents could not be read.
    controls: tuple[str, ...] = ()
    # Whether a value read lies inside it: then it is what the layer says, not the page under it.
    holds_value: bool = False
    frames: tuple[str, ...] = ()
    unread_frames: tuple[str, ...] = ()

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
            controls=tuple(str(name) for name in raw.get("controls") or ()),
            holds_value=bool(raw.get("holds_value")),
            frames=tuple(str(url) for url in raw.get("frames") or ()),
            unread_frames=tuple(str(url) for url in raw.get("unread_frames") or ()),
        )

    def dismissal(self) -> str | None:
        """The control that puts the layer away ("Maybe later", "×"), if it offers one: the page
        under it is a click away."""
        return next((name for name in self.controls if DISMISSAL.fullmatch(_normalised(name))), None)

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
            **({"dismissed_by": dismissal} if (dismissal := self.dismissal()) else {}),
            **({"holds_value": True} if self.holds_value else {}),
            **({"frames": list(self.frames)} if self.frames else {}),
            **({"unread_frames": list(self.unread_frames)} if self.unread_frames else {}),
        }


def _normalised(name: str) -> str:
    return " ".join(name.casefold().replace("’", "'").split()).strip(" .!")
