"""The shape of one blocker kind's words (`blocker_phrases`, `stand_in_phrases`): data only."""

from __future__ import annotations

import re
from dataclasses import dataclass

from runtime.outcomes import BlockerKind


@dataclass(frozen=True)
class PhraseSet:
    """A kind's phrases by how prominently they must stand (`page_blockers` rule 3): `strong`
    ones say what the page is, `weak` ones also appear on ordinary pages, `bare` ones ("Coming
    soon", "It works!") count only as the title or main heading of a page with almost nothing else,
    `placeholder` ones ("This site is under construction") as a title or main heading, or in the
    text of such a page, and `shown` ones are strong phrases that count in the text only when it is
    what the page shows: a `<noscript>` notice ("You need to enable JavaScript to run this app") is
    in the HTML, and so in the readable text, of every client-side app, shown to no browser that
    runs scripts."""

    kind: BlockerKind
    strong: tuple[re.Pattern[str], ...]
    weak: tuple[re.Pattern[str], ...]
    bare: tuple[re.Pattern[str], ...] = ()
    placeholder: tuple[re.Pattern[str], ...] = ()
    shown: tuple[re.Pattern[str], ...] = ()

    def joined(self, more: PhraseSet) -> PhraseSet:
        return PhraseSet(
            self.kind,
            self.strong + more.strong,
            self.weak + more.weak,
            self.bare + more.bare,
            self.placeholder + more.placeholder,
            self.shown + more.shown,
        )


def compile_phrases(*patterns: str) -> tuple[re.Pattern[str], ...]:
    """Patterns written in lower case, matched against lower-cased text: without IGNORECASE a
    pattern's literal start lets the engine skip ahead, about twice as fast on a page's text."""
    return tuple(re.compile(p) for p in patterns)
