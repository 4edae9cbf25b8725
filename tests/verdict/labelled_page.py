"""The shape of a labelled blocker page, and the filler texts the labelled tables share (an
article long enough not to be a short page, a long menu and footer)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from runtime.execute.judges.page_blockers import PageSignals
from runtime.outcomes import BlockerKind

LONG_ARTICLE = " ".join(
    [
        "Researchers have studied the history of web security challenges for two decades, and the story is longer",
        "than most readers expect. Early systems asked visitors to read distorted letters; later ones asked them to",
        "pick pictures of buses and traffic lights, and today most checks run invisibly in the background.",
    ]
    * 6
)
LONG_ARTICLE_ZH = "本报记者从多家网站了解到，近年来网络安全措施不断升级，用户在访问时遇到的各种检查越来越常见。" * 12
NAV_AND_FOOTER = " ".join(["Home Shop Men Women Kids Sale Stores Help Contact Careers Press Privacy Terms Cookies Accessibility"] * 12)


@dataclass(frozen=True)
class BlockerCase:
    id: str
    page: PageSignals
    kind: BlockerKind | None
    soft: bool = False
    evidence: dict[str, Any] = field(default_factory=dict)  # entries the finding's evidence must hold
    expected_status: int = 200


