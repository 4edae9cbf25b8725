"""Labelled pages under a layer (runtime/execute/judges/covering_layer.py): what a browser reads of
a long quote page and of the fixed layer drawn over it, and the kind the page must be given. Each
was labelled before the detector was run on it. The page under each layer is long and is no
blocker by itself: only the layer can make it one.

The benign layers cover the page as much, with no wall in them: a photo lightbox, a newsletter
offer, a "loading" veil.
"""

from __future__ import annotations

from runtime.execute.judges.covering_layer import CoveringLayer
from runtime.execute.judges.page_blockers import PageSignals
from runtime.outcomes import BlockerKind
from tests.verdict.labelled_page import LONG_ARTICLE, BlockerCase

QUOTE_PAGE = f"AU2606 gold futures Last 612.35 CNY/g {LONG_ARTICLE}"


def _covered(
    text: str, *headings: str, password: bool = False, captcha: bool = False, held: tuple[str, ...] = (), controls: tuple[str, ...] = (),
    holds_value: bool = False,
) -> PageSignals:
    layer = CoveringLayer(("div#gate",), 1.0 if not held else 0.08, held, headings, text, password, captcha, controls, holds_value=holds_value)
    page_text = f"{QUOTE_PAGE} {text}"
    return PageSignals(url="https://quotes.example/au2606", status=200, title="AU2606 gold futures quote", text=page_text,
                       headings=("AU2606 gold futures", *headings), has_password_field=password, has_captcha_widget=captcha, cover=layer)


K = BlockerKind
LOGIN = "Sign in to keep reading Email Password Sign in"
PAYWALL = "Subscribe to continue reading You have read all your free articles this month. Subscribe"
COVER_CASES: tuple[BlockerCase, ...] = (
    BlockerCase("cover-login-form", _covered(LOGIN, "Sign in to keep reading", password=True), K.LOGIN_REQUIRED, True, {"signal": "covering_layer"}),
    BlockerCase("cover-paywall", _covered(PAYWALL, "Subscribe to continue reading"), K.LOGIN_REQUIRED, True, {"signal": "covering_layer"}),
    BlockerCase("cover-paywall-inert", _covered(PAYWALL, "Subscribe to continue reading", held=("page inert",)), K.LOGIN_REQUIRED, True),
    BlockerCase("cover-session-zh", _covered("登录后查看完整行情 手机号 密码 登录", "登录后查看完整行情", password=True), K.LOGIN_REQUIRED, True),
    BlockerCase(
        "cover-captcha", _covered("One more step Verify you are human to see this page.", "One more step", captcha=True), K.CAPTCHA, True,
        {"signal": "covering_layer"},
    ),
    BlockerCase("cover-access-denied", _covered("Access denied Your account has no access to this quote.", "Access denied"), K.ACCESS_DENIED, True),
    BlockerCase("cover-bot-wall", _covered("Checking your browser before accessing quotes.example", "Just a moment..."), K.ACCESS_BLOCKED, True),
    # Benign: a layer as large, that is no wall.
    BlockerCase("cover-benign-lightbox", _covered("The trading floor at the open Photo: dealers at the morning auction. Close", "The trading floor at the open"), None),
    BlockerCase("cover-benign-newsletter", _covered("Get our morning briefing Subscribe to our newsletter. Email Subscribe", "Get our morning briefing"), None),
    BlockerCase("cover-benign-loading", _covered("Loading the latest prices…"), None),
    # VERDICT-042: a sign-in prompt with a way past it is a popup, not a wall; a wall offers a way
    # in (sign in, subscribe) and no way past, and a captcha's close button does not put it away.
    BlockerCase(
        "cover-dismissible-signin",
        _covered(f"Sign in for a better experience {LOGIN} Maybe later", "Sign in for a better experience", password=True, controls=("×", "Sign in", "Maybe later")),
        None,
    ),
    BlockerCase(
        "cover-dismissible-zh",
        _covered("登录后查看更多行情 手机号 密码 登录 暂不登录", "登录后查看更多行情", password=True, controls=("登录", "暂不登录")),
        None,
    ),
    BlockerCase(
        "cover-dismissible-continue",
        _covered("Sign in to continue Save your watchlist. Sign in Continue without signing in", "Sign in to continue", controls=("Sign in", "Continue without signing in")),
        None,
    ),
    # The same prompt, but the value read lies inside it ("Last seen 999.99"): the prompt's own word,
    # behind a sign-in, however it can be put away.
    BlockerCase(
        "cover-dismissible-holds-the-value",
        _covered(f"Sign in to see the live price Last seen 999.99 {LOGIN} Maybe later", "Sign in to see the live price", password=True,
                 controls=("×", "Sign in", "Maybe later"), holds_value=True),
        K.LOGIN_REQUIRED, True, {"signal": "covering_layer"},
    ),
    BlockerCase(
        "cover-paywall-ways-in", _covered(PAYWALL, "Subscribe to continue reading", controls=("Subscribe", "Already a subscriber? Sign in")), K.LOGIN_REQUIRED, True,
        {"signal": "covering_layer"},
    ),
    BlockerCase(
        "cover-captcha-close",
        _covered("One more step Verify you are human to see this page. Close", "One more step", captcha=True, controls=("Close",)), K.CAPTCHA, True,
        {"signal": "covering_layer"},
    ),
)
