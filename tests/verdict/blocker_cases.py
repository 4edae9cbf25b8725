"""Labelled pages for blocker detection: what a browser would see, and the kind it must be given.

Each case was labelled before the detector was run on it. `None` means an ordinary page. The
benign ones mention the blocker words on purpose: in an article, a footer, a sidebar, a product name.
"""

from __future__ import annotations

from typing import Any

from runtime.execute.judges.page_blockers import PageSignals
from runtime.outcomes import BlockerKind
from tests.verdict.cover_cases import COVER_CASES
from tests.verdict.language_cases import LANGUAGE_CASES
from tests.verdict.labelled_page import LONG_ARTICLE, LONG_ARTICLE_ZH, NAV_AND_FOOTER, BlockerCase
from tests.verdict.stand_in_cases import STAND_IN_CASES

__all__ = ["CASES", "BlockerCase"]


def _page(
    title: str = "",
    text: str = "",
    *,
    status: int | None = 200,
    url: str = "https://shop.example/item",
    headings: tuple[str, ...] = (),
    **kwargs: Any,
) -> PageSignals:
    return PageSignals(url=url, status=status, title=title, text=text, headings=headings, **kwargs)


K = BlockerKind
CASES: tuple[BlockerCase, ...] = (
    # --- soft 404 (HTTP 200) ------------------------------------------------------------------------
    BlockerCase("soft404-en-short", _page("Oops!", "Oops! That page can't be found. Try the search box below."), K.PAGE_NOT_FOUND, True),
    BlockerCase(
        "soft404-en-title-long",
        _page("Page not found | Example Shop", NAV_AND_FOOTER, headings=("We looked everywhere",)),
        K.PAGE_NOT_FOUND,
        True,
    ),
    BlockerCase(
        "soft404-en-heading-404",
        _page("Example Shop", "404 Sorry, we could not find it. Back to home", headings=("404",)),
        K.PAGE_NOT_FOUND,
        True,
    ),
    BlockerCase("soft404-zh", _page("页面不存在_某网", "抱歉，您访问的页面不存在。返回首页"), K.PAGE_NOT_FOUND, True),
    BlockerCase(
        "soft404-zh-heading",
        _page("某商城", "找不到页面 可能已被删除 " + "首页 关于我们 " * 5, headings=("抱歉，找不到页面",)),
        K.PAGE_NOT_FOUND,
        True,
    ),
    BlockerCase("soft404-ja", _page("ページが見つかりません | 例", "お探しのページは見つかりませんでした。"), K.PAGE_NOT_FOUND, True),
    BlockerCase("soft404-de", _page("Seite nicht gefunden", "Die Seite wurde nicht gefunden."), K.PAGE_NOT_FOUND, True),
    # --- status pages -------------------------------------------------------------------------------
    BlockerCase("http-404", _page("Not Found", "The requested URL was not found on this server.", status=404), K.PAGE_NOT_FOUND),
    BlockerCase("http-410", _page("Gone", "", status=410), K.PAGE_NOT_FOUND),
    BlockerCase(
        "http-403-plain",
        _page("403 Forbidden", "Forbidden. You don't have permission to access this resource.", status=403),
        K.ACCESS_DENIED,
    ),
    BlockerCase("http-401-no-challenge", _page("Unauthorized", "401 Unauthorized", status=401), K.ACCESS_DENIED),
    BlockerCase("http-500", _page("500 Internal Server Error", "Internal Server Error", status=500), K.SERVER_ERROR),
    BlockerCase("http-502-zh", _page("502 Bad Gateway", "服务器错误，请稍后再试", status=502), K.SERVER_ERROR),
    BlockerCase(
        "http-400", _page("Bad Request", "Your browser sent a request this server could not understand.", status=400), K.STATUS_MISMATCH
    ),
    BlockerCase("http-200-expected-201", _page("Created?", "ok"), K.STATUS_MISMATCH, expected_status=201),
    # --- rate limits -------------------------------------------------------------------------------
    BlockerCase(
        "http-429-seconds",
        _page("Too Many Requests", "Slow down", status=429, headers={"Retry-After": "30"}),
        K.RATE_LIMITED,
        evidence={"retry_after_seconds": 30.0, "retry_after_source": "header"},
    ),
    BlockerCase(
        "http-429-date",
        _page("", "", status=429, headers={"retry-after": "Wed, 21 Oct 2026 07:30:00 GMT"}),
        K.RATE_LIMITED,
        evidence={"retry_after_seconds": 120.0},
    ),
    BlockerCase(
        "http-429-no-header",
        _page("", "Too many requests. Try again in 2 minutes.", status=429),
        K.RATE_LIMITED,
        evidence={"retry_after_seconds": 120.0, "retry_after_source": "text"},
    ),
    BlockerCase(
        "soft-rate-zh", _page("提示", "请求过于频繁，请 30 秒后再试"), K.RATE_LIMITED, True, evidence={"retry_after_seconds": 30.0}
    ),
    BlockerCase("soft-rate-zh-frequency", _page("访问频率过高", "您的访问频率过高，请稍后再试。"), K.RATE_LIMITED, True),
    BlockerCase("http-503-rate-text", _page("Service Unavailable", "Too many requests from your network.", status=503), K.RATE_LIMITED),
    # --- captchas ----------------------------------------------------------------------------------
    BlockerCase("captcha-en-short", _page("Just a moment...", "Verify you are human by completing the action below."), K.CAPTCHA, True),
    BlockerCase(
        "captcha-en-robot",
        _page("Robot Check", "Enter the characters you see below. Sorry, we just need to make sure you're not a robot."),
        K.CAPTCHA,
        True,
    ),
    BlockerCase("captcha-zh-verify", _page("安全验证", "请完成安全验证后继续访问"), K.CAPTCHA, True),
    BlockerCase("captcha-zh-human", _page("某网站", "人机验证 请拖动下方滑块完成拼图"), K.CAPTCHA, True),
    BlockerCase("captcha-zh-code", _page("输入验证码", "为了您的账号安全，请输入验证码"), K.CAPTCHA, True),
    BlockerCase("captcha-widget-short", _page("Contact", "Please tick the box to continue.", has_captcha_widget=True), K.CAPTCHA, True),
    BlockerCase("captcha-403", _page("Attention", "Please complete the security check to access the site.", status=403), K.CAPTCHA),
    # --- bot walls ---------------------------------------------------------------------------------
    BlockerCase(
        "blocked-cloudflare",
        _page("Attention Required! | Cloudflare", "Sorry, you have been blocked. You are unable to access example.com", status=403),
        K.ACCESS_BLOCKED,
    ),
    BlockerCase(
        "blocked-unusual-traffic",
        _page("Sorry...", "Our systems have detected unusual traffic from your computer network."),
        K.ACCESS_BLOCKED,
        True,
    ),
    BlockerCase("blocked-zh", _page("访问被拦截", "您的访问被拦截，疑似机器人行为。"), K.ACCESS_BLOCKED, True),
    BlockerCase(
        "blocked-waf-rejected",
        _page("Request Rejected", "The requested URL was rejected. Please consult with your administrator.", status=403),
        K.ACCESS_BLOCKED,
    ),
    # --- login walls -------------------------------------------------------------------------------
    BlockerCase(
        "login-en-form",
        _page(
            "Sign in | Example", "Email Password Forgot password? Sign in Create account", headings=("Sign in",), has_password_field=True
        ),
        K.LOGIN_REQUIRED,
        True,
    ),
    BlockerCase("login-en-wall-text", _page("Members", "Please log in to continue reading this story. Subscribe"), K.LOGIN_REQUIRED, True),
    BlockerCase(
        "login-en-redirect",
        _page("Welcome back", "Email Continue", url="https://shop.example/login?next=/orders", requested_url="https://shop.example/orders"),
        K.LOGIN_REQUIRED,
        True,
    ),
    BlockerCase(
        "login-zh-form",
        _page("登录 - 某网", "账号 密码 忘记密码 立即注册", headings=("账号登录",), has_password_field=True),
        K.LOGIN_REQUIRED,
        True,
    ),
    BlockerCase("login-zh-wall", _page("某资讯", "该内容需要登录后查看，请先登录"), K.LOGIN_REQUIRED, True),
    BlockerCase(
        "login-401-challenge", _page("401", "", status=401, headers={"WWW-Authenticate": 'Basic realm="members"'}), K.LOGIN_REQUIRED
    ),
    BlockerCase(
        "login-403-form", _page("Log in", "Log in to see this page. Password", status=403, has_password_field=True), K.LOGIN_REQUIRED
    ),
    BlockerCase("login-ja", _page("ログイン", "ログインしてください"), K.LOGIN_REQUIRED, True),
    # --- soft refusals and errors ------------------------------------------------------------------
    BlockerCase("soft-denied-zh", _page("提示", "访问被拒绝：您没有权限查看此页面"), K.ACCESS_DENIED, True),
    BlockerCase(
        "soft-server-error", _page("Internal Server Error", "Internal Server Error. The server encountered an error."), K.SERVER_ERROR, True
    ),
    # --- benign pages that merely mention the words -----------------------------------------------
    BlockerCase(
        "benign-captcha-article",
        _page(
            "How CAPTCHAs changed the web | Tech Daily",
            LONG_ARTICLE + " Verify you are human, they said.",
            headings=("How CAPTCHAs changed the web",),
        ),
        None,
    ),
    BlockerCase(
        "benign-footer-login", _page("Gold price today", "Gold 2,345.10 USD per ounce. Updated 10:00. About Help Log in Sign up"), None
    ),
    BlockerCase(
        "benign-404-coffee",
        _page(
            "404 Error Coffee | Roasters",
            "404 Error Coffee, single-origin beans from Huila. 250 g bag $14.00. Add to cart",
            headings=("404 Error Coffee",),
        ),
        None,
    ),
    BlockerCase(
        "benign-429-article",
        _page(
            "How to fix HTTP 429 Too Many Requests errors",
            LONG_ARTICLE + " Too many requests happen when clients retry.",
            headings=("How to fix HTTP 429 Too Many Requests errors",),
        ),
        None,
    ),
    BlockerCase(
        "benign-429-short-article",
        _page(
            "How to fix HTTP 429 Too Many Requests errors",
            "How to fix HTTP 429 Too Many Requests errors A 429 status asks a client to slow down. Wait for the time in the "
            "Retry-After header, spread calls over time, and cache answers that rarely change.",
            headings=("How to fix HTTP 429 Too Many Requests errors",),
        ),
        None,
    ),
    BlockerCase(
        "benign-sidebar-login",
        _page("Market wrap: gold rises", LONG_ARTICLE, headings=("Market wrap: gold rises", "Log in"), has_password_field=True),
        None,
    ),
    BlockerCase(
        "benign-zh-article",
        _page("网站安全新规解读_新闻", LONG_ARTICLE_ZH + "用户登录时需要输入验证码，人机验证也更常见。", headings=("网站安全新规解读",)),
        None,
    ),
    BlockerCase("benign-zh-quote-login-link", _page("黄金价格", "黄金 456.78 元/克 更新时间 10:00 登录 注册"), None),
    BlockerCase(
        "benign-recaptcha-footer",
        _page("Contact us", LONG_ARTICLE + " This site is protected by reCAPTCHA.", has_captcha_widget=True, headings=("Contact us",)),
        None,
    ),
    BlockerCase(
        "benign-not-found-in-search", _page("Search results for gold", "12 results. Item not found? Try another query. Gold bar 1 oz"), None
    ),
    BlockerCase("benign-expected-404", _page("Not Found", "page not found", status=404), None, expected_status=404),
    BlockerCase(
        "benign-login-word-title",
        _page("Login streaks and other habits | Blog", LONG_ARTICLE, headings=("Login streaks and other habits",)),
        None,
    ),
    BlockerCase("benign-unknown-status", _page("Gold quote", "Gold 2,345.10 USD", status=None), None),
    # --- wave 8: pages that say in other words that they are not the page asked for -----------
    BlockerCase(
        "gone-item-en", _page("AU2606 gold futures | Example Exchange", "AU2606 was delisted. Last traded 999.99", headings=("This item is no longer available",)),
        K.PAGE_NOT_FOUND, True,
    ),
    BlockerCase("gone-subject-en", _page("AU2606", "Last traded 999.99", headings=("AU2606 is no longer available",)), K.PAGE_NOT_FOUND, True),
    BlockerCase(
        "gone-item-de", _page("AU2606 Gold-Future | Beispielbörse", "Letzter Kurs 999.99", headings=("Dieser Artikel ist nicht mehr verfügbar",)),
        K.PAGE_NOT_FOUND, True,
    ),
    BlockerCase("gone-item-zh", _page("示例商城", "抱歉，该商品已下架。 参考价 999.99"), K.PAGE_NOT_FOUND, True),
    BlockerCase(
        "named-not-found-long", _page("Product not found | Example Shop", NAV_AND_FOOTER + " You may also like 999.99", headings=("Product not found",)),
        K.PAGE_NOT_FOUND, True,
    ),
    BlockerCase("named-not-found-zh", _page("AU2606 行情", "参考价 999.99", headings=("该合约不存在",)), K.PAGE_NOT_FOUND, True),
    BlockerCase("named-not-found-de", _page("Börse", NAV_AND_FOOTER, headings=("Artikel nicht gefunden",)), K.PAGE_NOT_FOUND, True),
    BlockerCase("named-unavailable", _page("Video unavailable - Example Tube", "999.99 views"), K.PAGE_NOT_FOUND, True),
    BlockerCase("soft-service-unavailable", _page("Service Unavailable", "Service Unavailable"), K.SERVER_ERROR, True),
    BlockerCase("cannot-find-page-long", _page("Example Exchange", NAV_AND_FOOTER, headings=("We can't find the page you're looking for",)), K.PAGE_NOT_FOUND, True),
    BlockerCase("page-you-requested-short", _page("Example Exchange", "The page you requested could not be found. 999.99", headings=("Sorry!",)), K.PAGE_NOT_FOUND, True),
    BlockerCase("paywall-short", _page("AU2606 analysis | Paper", "Subscribe to continue reading. 999.99", headings=("AU2606 outlook",)), K.LOGIN_REQUIRED, True),
    BlockerCase("signed-out", _page("AU2606 quote", "For your security. 999.99", headings=("You have been signed out",)), K.LOGIN_REQUIRED, True),
    BlockerCase("error-on-our-end-long", _page("AU2606 quote", NAV_AND_FOOTER, headings=("Oops, something went wrong on our end",)), K.SERVER_ERROR, True),
    BlockerCase("zero-results-heading", _page("Search results", "999.99", headings=("0 results for AU2606",)), K.NO_SEARCH_RESULTS, True),
    BlockerCase("maintenance-long", _page("Example Exchange", NAV_AND_FOOTER, headings=("Site under maintenance",)), K.SERVER_ERROR, True),
    BlockerCase("maintenance-zh", _page("示例交易所", "系统维护中，请稍后再试。 999.99"), K.SERVER_ERROR, True),
    BlockerCase("geo-blocked", _page("AU2606 quote", "This content is not available in your country. 999.99"), K.ACCESS_DENIED, True),
    BlockerCase("benign-maintenance-article", _page("How we plan maintenance | Blog", LONG_ARTICLE, headings=("How we plan maintenance windows",)), None),
    BlockerCase("benign-subscribers-teaser", _page("AU2606 gold futures quote", "Last 612.35 CNY/g. Subscribers only: our weekly gold outlook.", headings=("AU2606 gold futures",)), None),
    BlockerCase("benign-not-found-coffee", _page("Not Found Coffee | Menu", NAV_AND_FOOTER + " Espresso 3.50", headings=("Not Found Coffee",)), None),
    BlockerCase(
        "no-results-en", _page("Search: AU2606 | Example Exchange", "We found no results for AU2606. Popular today 999.99", headings=("No results found",)),
        K.NO_SEARCH_RESULTS, True,
    ),
    BlockerCase("no-results-en-query", _page("Search", "Popular today 999.99", headings=("No results for “AU2606 gold”",)), K.NO_SEARCH_RESULTS, True),
    BlockerCase(
        "no-results-zh", _page("AU2606 搜索结果 - 示例交易所", "请检查输入的合约代码。 热门 999.99", headings=("抱歉，没有找到与“AU2606”相关的结果",)),
        K.NO_SEARCH_RESULTS, True,
    ),
    BlockerCase("no-results-fr", _page("Recherche", "Aucun résultat pour AU2606. Populaire 999.99"), K.NO_SEARCH_RESULTS, True),
    BlockerCase(
        "session-expired-en", _page("AU2606 gold futures quote", "Please sign in again to see the price. Last seen 999.99", headings=("Your session has expired",)),
        K.LOGIN_REQUIRED, True,
    ),
    BlockerCase(
        "session-expired-fr", _page("AU2606 contrat à terme or", "Veuillez vous reconnecter pour voir le cours. 999.99", headings=("Votre session a expiré",)),
        K.LOGIN_REQUIRED, True,
    ),
    BlockerCase("session-expired-zh", _page("行情", "登录已过期，请重新登录。 999.99"), K.LOGIN_REQUIRED, True),
    BlockerCase(
        "generic-error-main-long", _page("AU2606 gold futures quote - Example Exchange", NAV_AND_FOOTER + " Last close 999.99", headings=("Something went wrong", "AU2606 at a glance")),
        K.SERVER_ERROR, True,
    ),
    BlockerCase("generic-error-ja", _page("相場", "エラーが発生しました。しばらくしてから再度お試しください。 999.99"), K.SERVER_ERROR, True),
    # Benign: the same words about something else, on a page that is what it says.
    BlockerCase(
        "benign-discontinued-note", _page("AU2606 gold futures quote", LONG_ARTICLE + " The old AU2512 contract is no longer available.", headings=("AU2606 gold futures",)),
        None,
    ),
    BlockerCase("benign-search-with-results", _page("Search: gold | Example Exchange", "3 results for gold. AU2606 612.35 AU2612 618.10", headings=("Results for gold",)), None),
    BlockerCase(
        "benign-error-help-article", _page("What to do when something went wrong | Help", LONG_ARTICLE, headings=("What to do when something went wrong with your order",)),
        None,
    ),
)
# Pages that stand in for the site's content (a default page, a parked domain, a gate ...), long
# pages under a layer that is a wall, or is not, and the pages of the languages added last.
CASES = (*CASES, *STAND_IN_CASES, *COVER_CASES, *LANGUAGE_CASES)
