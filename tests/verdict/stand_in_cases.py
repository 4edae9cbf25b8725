"""Labelled pages an allowed site answers with HTTP 200 that stand in for its content: a web
server's default page, a suspended or parked site, "coming soon", a directory listing, a "this
page has moved" notice, a page whose script did not run, a region block, an age or consent gate,
a bot check worded in new ways. Each was labelled before the detector was run on it.

The benign ones use the same words on pages that are what they say: a tutorial, a shop's "Coming
soon" shelf with prices, a footer that mentions JavaScript, an article about parked domains.
"""

from __future__ import annotations

from typing import Any

from runtime.execute.judges.page_blockers import PageSignals
from runtime.outcomes import BlockerKind
from tests.verdict.labelled_page import LONG_ARTICLE, NAV_AND_FOOTER, BlockerCase

SHELF = " ".join(f"Gold bar {n} oz ${n * 2345}.00 Add to cart" for n in (1, 2, 5, 10)) + " " + NAV_AND_FOOTER


def _page(title: str = "", text: str = "", *, headings: tuple[str, ...] = (), status: int = 200, **kwargs: Any) -> PageSignals:
    return PageSignals(url="https://quotes.example/au2606", status=status, title=title, text=text, headings=headings, **kwargs)


def _case(id: str, kind: BlockerKind | None, title: str = "", text: str = "", *headings: str, status: int = 200) -> BlockerCase:
    return BlockerCase(id, _page(title, text, headings=headings, status=status), kind, kind is not None and status == 200)


NF, ERR, DENIED, BLOCKED = BlockerKind.PAGE_NOT_FOUND, BlockerKind.SERVER_ERROR, BlockerKind.ACCESS_DENIED, BlockerKind.ACCESS_BLOCKED
NGINX = (
    "Welcome to nginx! If you see this page, the nginx web server is successfully installed and working. Further configuration is "
    "required. For online documentation and support please refer to nginx.org. Thank you for using nginx."
)

# Why these kinds: a default page, a parked or unfinished site and a "moved" notice all
# say the content asked for is not at this address (page_not_found, as a soft 404 does); a
# suspended or over-quota site is out of service like one down for maintenance (server_error); a
# region, age or consent gate withholds the content until the visitor is someone or declares
# something the run cannot be or declare for its user (access_denied, as a region block already
# was); a page whose script must run first, or that checks the browser, is a bot wall
# (access_blocked): retrying it will not show the content.
STAND_IN_CASES: tuple[BlockerCase, ...] = (
    # --- a web server's default page ---------------------------------------------------------------
    _case("default-nginx", NF, "Welcome to nginx!", NGINX, "Welcome to nginx!"),
    _case("default-nginx-no-title", NF, "", NGINX),
    _case("default-apache-it-works", NF, "", "It works!", "It works!"),
    _case(
        "default-apache-ubuntu", NF, "Apache2 Ubuntu Default Page: It works",
        LONG_ARTICLE + " This is the default welcome page used to test the correct operation of the Apache2 server after installation.",
        "Configuration Overview", "Document Roots",
    ),
    _case("default-httpd-test-page", NF, "Test Page for the Apache HTTP Server", "This page is used to test the proper operation of the Apache HTTP server."),
    _case("default-iis", NF, "IIS Windows Server", ""),
    _case("default-caddy", NF, "Caddy works!", "Your web server is working. Now make it work for you.", "Caddy works!"),
    _case("default-bt-panel-zh", NF, "恭喜，站点创建成功！", "这是默认index.html，本页面由系统自动生成。您可以修改、删除或覆盖本页面。", "恭喜, 站点创建成功！"),
    _case("default-no-site-zh", NF, "没有找到站点", "您的请求在Web服务器中没有找到对应的站点！", "没有找到站点"),
    # --- a suspended or over-quota site ------------------------------------------------------------
    _case("suspended-en", ERR, "Account Suspended", "This Account has been suspended. Contact your hosting provider for more information."),
    _case("suspended-heading-long", ERR, "AU2606 quote - Gold Desk", NAV_AND_FOOTER, "This account has been suspended"),
    _case(
        "bandwidth-en", ERR, "Bandwidth Limit Exceeded",
        "The server is temporarily unable to service your request due to the site owner reaching his/her bandwidth limit.",
    ),
    _case("suspended-zh", ERR, "提示", "该网站已暂停访问，请联系空间服务商。"),
    _case("suspended-de", ERR, "Hinweis", "Diese Website wurde vorübergehend gesperrt. Bitte wenden Sie sich an den Betreiber."),
    _case("suspended-fr", ERR, "Compte suspendu", "Ce site a été suspendu par l'hébergeur."),
    # --- a parked, for-sale or expired domain -------------------------------------------------------
    _case("parked-en", NF, "quotes.example is for sale", "The domain quotes.example may be for sale. Related searches: Gold Price Gold Futures"),
    _case("parked-buy", NF, "quotes.example", "quotes.example This domain is for sale! Make an offer.", "Buy this domain"),
    _case("parked-expired", NF, "quotes.example", "This domain has expired. If you are the owner, renew it now to restore your website."),
    _case("parked-zh", NF, "域名出售", "此域名正在出售中，欢迎联系购买。"),
    _case("parked-ja", NF, "quotes.example", "このドメインは販売中です。お問い合わせください。"),
    _case("parked-de", NF, "quotes.example", "Diese Domain steht zum Verkauf. Jetzt Angebot abgeben."),
    _case("parked-fr", NF, "quotes.example", "Ce nom de domaine est à vendre."),
    _case("parked-es", NF, "quotes.example", "Este dominio está a la venta."),
    # --- coming soon, under construction -------------------------------------------------------------
    _case("coming-soon-bare", NF, "Coming Soon", "Coming soon We're working hard on something amazing. Stay tuned!", "Coming soon"),
    _case("under-construction", NF, "Under Construction | Gold Desk", "This site is under construction. Please check back later."),
    _case("coming-soon-launch", NF, "Gold Desk", NAV_AND_FOOTER, "Our new website is coming soon"),
    _case("coming-soon-zh", NF, "网站建设中", "网站正在建设中，敬请期待！"),
    _case("coming-soon-ja", NF, "準備中", "ただいま準備中です。公開までしばらくお待ちください。", "ただいま準備中です"),
    _case("coming-soon-de", NF, "Gold Desk", "Diese Website befindet sich im Aufbau. Bald geht es los."),
    _case("coming-soon-fr", NF, "Site en construction", "Bientôt disponible."),
    _case("coming-soon-es", NF, "Gold Desk", "Sitio en construcción. Próximamente.", "Sitio en construcción"),
    # --- a directory listing: a page like any other (a file mirror's listing is what a recipe may read,
    # the quick start's first recipe among them), judged by the recipe's keywords ----------------------
    _case(
        "listing-root", None, "Index of /",
        "Index of / Name Last modified Size Description backup/ 2026-11-01 10:00 - quote.json 2026-11-28 09:00 1.2K", "Index of /",
    ),
    _case("listing-folder", None, "Index of /quotes/au2606", "Index of /quotes/au2606 Parent Directory 612.35.csv 2026-11-28 4.0K", "Index of /quotes/au2606"),
    _case("listing-python", None, "Directory listing for /", "Directory listing for / quote.json data/", "Directory listing for /"),
    # --- this page has moved ----------------------------------------------------------------------------
    _case("moved-en", NF, "Page moved", "This page has moved to a new address. Please update your bookmarks.", "This page has moved"),
    _case("moved-apache-on-200", NF, "301 Moved Permanently", "Moved Permanently The document has moved here.", "Moved Permanently"),
    _case("moved-site", NF, "Gold Desk", "We've moved! Our new website is gold-desk.example. 612.35", "We've moved!"),
    _case("moved-zh", NF, "提示", "本页面已迁移至新地址，请更新您的书签。"),
    _case("moved-de", NF, "Hinweis", "Diese Seite ist umgezogen. Bitte aktualisieren Sie Ihre Lesezeichen."),
    _case("moved-fr", NF, "Avis", "Cette page a été déplacée."),
    # --- a page whose script did not run, a bot check -----------------------------------------------
    _case("js-app-shell", BLOCKED, "Gold Desk", "You need to enable JavaScript to run this app."),
    _case("js-cookies", BLOCKED, "Just a moment...", "Enable JavaScript and cookies to continue"),
    _case("js-required-heading-long", BLOCKED, "AU2606 quote", NAV_AND_FOOTER, "JavaScript is required"),
    _case("js-zh", BLOCKED, "金价", "请启用 JavaScript 以继续访问本网站。"),
    _case("js-ja", BLOCKED, "相場", "このサイトを表示するにはJavaScriptを有効にしてください。"),
    _case("js-de", BLOCKED, "Kurse", "Bitte aktivieren Sie JavaScript, um diese Seite zu nutzen."),
    _case("bot-check-wait", BLOCKED, "Please wait...", "Please wait while we verify your browser. This process is automatic."),
    _case("bot-check-verifying", BLOCKED, "Just a moment...", "Verifying you are human. This may take a few seconds."),
    _case("bot-check-review", BLOCKED, "quotes.example", "quotes.example needs to review the security of your connection before proceeding."),
    _case("bot-check-zh", BLOCKED, "请稍候", "正在验证您的浏览器，请稍候……"),
    _case("bot-check-fr", BLOCKED, "Un instant", "Vérification de votre navigateur en cours..."),
    _case("bot-check-es", BLOCKED, "Un momento", "Comprobando tu navegador antes de acceder."),
    # --- a region, age or consent gate ---------------------------------------------------------------
    _case("region-isnt", DENIED, "AU2606 live", "Sorry, this video isn't available in your country. 612.35"),
    _case("region-location", DENIED, "Gold Daily", "This website is unavailable in your location.", "451: Unavailable due to legal reasons"),
    _case("region-451", DENIED, "Unavailable For Legal Reasons", "Unavailable For Legal Reasons", status=451),
    _case("region-zh", DENIED, "提示", "该内容在您所在的地区不可用。"),
    _case("region-ja", DENIED, "お知らせ", "このサービスはお住まいの地域ではご利用いただけません。"),
    _case("region-de", DENIED, "Hinweis", "Dieser Inhalt ist in Ihrem Land nicht verfügbar."),
    _case("region-es", DENIED, "Aviso", "Este contenido no está disponible en tu país."),
    _case("age-gate-en", DENIED, "Age verification", "You must be 18 years or older to enter this site. Yes No", "Are you 18 or older?"),
    _case("age-gate-dob", DENIED, "Gold Spirits", "Please enter your date of birth to continue. Day Month Year Enter", "Verify your age"),
    _case("age-gate-zh", DENIED, "年龄确认", "您是否已年满18周岁？ 是 否"),
    _case("age-gate-ja", DENIED, "年齢確認", "あなたは20歳以上ですか？ はい いいえ"),
    _case("age-gate-de", DENIED, "Altersverifikation", "Bist du mindestens 18 Jahre alt? Ja Nein"),
    _case("consent-gate", DENIED, "Before you continue to Gold Desk", LONG_ARTICLE + " Reject all Accept all"),
    _case("consent-gate-de", DENIED, "Bevor Sie zu Gold Desk weitergehen", "Wir verwenden Cookies und Daten. Alle ablehnen Alle akzeptieren"),
    # --- benign: the same words on pages that are what they say -------------------------------------
    _case("benign-nginx-tutorial", None, "How to install nginx on Ubuntu | Docs", LONG_ARTICLE + " " + NGINX, "How to install nginx on Ubuntu"),
    _case(
        "benign-nginx-short-howto", None, "Install nginx in five minutes",
        "Run apt install nginx, then open http://localhost: you should see Welcome to nginx! in the browser.", "Install nginx in five minutes",
    ),
    _case("benign-it-works-post", None, "It works! Notes from our launch | Blog", LONG_ARTICLE, "It works!"),
    _case("benign-shop-coming-soon-shelf", None, "Gold bars | Example Shop", SHELF + " Coming soon: 1 kg bar. Notify me", "Gold bars", "Coming soon"),
    _case("benign-shop-coming-soon-page", None, "Coming soon | Example Shop", SHELF, "Coming soon"),
    _case("benign-zh-stay-tuned", None, "黄金行情_示例网", "黄金 456.78 元/克 更新时间 10:00 更多功能 敬请期待", "黄金行情"),
    _case("benign-bridge-news", None, "Bridge under construction | City News", LONG_ARTICLE, "New bridge under construction downtown"),
    _case(
        "benign-parked-article", None, "What is a parked domain? | Blog",
        LONG_ARTICLE + " A parked page says: This domain is for sale. Buy this domain.", "What is a parked domain?",
    ),
    _case("benign-registrar", None, "Find your domain | Registrar", "gold-desk.shop is available! $12.99/yr Add to cart", "Find your perfect domain"),
    _case(
        "benign-docs-listing", None, "Serving static files | Docs",
        LONG_ARTICLE + " Index of / Name Last modified Size quote.json 1.2K", "Serving static files", "Directory listings",
    ),
    _case("benign-book-index", None, "Index of authors | Library", "Austen, Jane 12 Borges, Jorge Luis 31", "Index of authors"),
    _case(
        "benign-js-footer", None, "AU2606 quote | Gold Desk",
        "AU2606 gold futures Last 612.35 CNY/g. Best viewed with JavaScript enabled. Built with React.", "AU2606 gold futures",
    ),
    _case("benign-moved-article", None, "How to tell search engines your site has moved | SEO Guide", LONG_ARTICLE, "Moving a site"),
    _case("benign-region-article", None, "Why some videos are not available in your country | Blog", LONG_ARTICLE, "Region locks explained"),
    _case(
        "benign-wine-shop", None, "Château Or 2015 | Wine Shop",
        "Château Or 2015 €45.00 Add to cart. You must be 18 or older to buy alcohol.", "Château Or 2015",
    ),
    _case(
        "benign-consent-banner", None, "AU2606 quote",
        "Last 612.35 CNY/g. We value your privacy. We use cookies to improve your experience. Accept all Reject all",
        "AU2606 gold futures", "We value your privacy",
    ),
    # Labelled after the first run, before the detector saw them.
    _case("benign-before-you-continue-notice", None, "Before you continue", "The desk's terms changed on Monday. Continue to the desk", "Before you continue"),
    _case("benign-coming-soon-tiny-shop", None, "Coming soon | Shop", "Coming soon Gold bar 1 kg $75,000.00 Pre-order", "Coming soon"),
    _case("benign-it-works-order", None, "Order desk", "It works! Order placed. Total 612.35", "It works!"),
    _case("benign-zh-launching-product", None, "积存金_示例银行", "积存金 即将上线 预约价 456.78 元/克", "积存金"),
    _case("benign-js-help", None, "Enable JavaScript in Chrome | Help", "Open Settings, Site settings, JavaScript, and choose Sites can use JavaScript.", "Enable JavaScript in Chrome"),
    _case("benign-office-moved", None, "Gold Desk", "Our office has moved to 5 Main Street. AU2606 612.35", "AU2606 gold futures"),
    _case("benign-trading-suspended", None, "AU2606 | Exchange", "Trading suspended at 10:00. Last 612.35", "AU2606 gold futures"),
    _case("benign-welcome", None, "Welcome to Gold Desk", "AU2606 612.35 CNY/g", "Welcome to Gold Desk"),
    _case("benign-shipping-country", None, "Gold bar 1 oz | Shop", "$2,345.00 Free shipping available in your country.", "Gold bar 1 oz"),
    _case("benign-age-law-article", None, "Why age verification laws are spreading | News", LONG_ARTICLE, "Age verification, explained"),
    # A third batch, other wordings, labelled before the detector saw them.
    _case("default-nginx-debian", NF, "Welcome to nginx on Debian!", "If you see this page, the nginx web server is working.", "Welcome to nginx on Debian!"),
    _case("default-apache-debian", NF, "Apache2 Debian Default Page: It works", LONG_ARTICLE, "Apache2 Debian Default Page"),
    _case("default-rocky", NF, "HTTP Server Test Page powered by: Rocky Linux", LONG_ARTICLE, "HTTP Server Test Page"),
    _case("default-openresty", NF, "Welcome to OpenResty!", "Welcome to OpenResty! If you see this page, the OpenResty web platform is successfully installed."),
    _case("default-plesk", NF, "Domain Default page", "This page is autogenerated by Plesk. Replace it with your own content."),
    _case("default-host-placeholder", NF, "quotes.example", "Future home of something quite cool. If you're the site owner, log in to launch this site."),
    _case("site-temporarily-unavailable", ERR, "Gold Desk", "This website is temporarily unavailable, please try again later."),
    _case("js-turn-on", BLOCKED, "quotes.example", "Please turn JavaScript on and reload the page."),
    _case("js-must-be-enabled", BLOCKED, "Gold Desk", "JavaScript must be enabled to view this site."),
    _case("js-zh-browser", BLOCKED, "金价", "请在浏览器中启用JavaScript后刷新页面。"),
    _case("bot-check-performing", BLOCKED, "quotes.example", "Performing security verification. This website uses a security service to protect against malicious bots."),
    _case("region-geo", DENIED, "AU2606 live", "This video is geo-restricted. 612.35"),
    _case("region-zh-watch", DENIED, "直播", "很抱歉，由于版权限制，您所在的地区无法观看。"),
    _case("benign-item-temporarily-unavailable", None, "Gold bar 1 kg | Shop", "This item is temporarily unavailable. Price $75,000.00", "Gold bar 1 kg"),
    _case("benign-nginx-question", None, "Why does my site say Welcome to nginx? | Q&A", "My site shows the nginx welcome page after deploy. Answer: remove the default server block.", "Why does my site say Welcome to nginx?"),
    _case("benign-autoindex-docs", None, "autoindex | nginx docs", "Example output: Index of /files/ Name Size a.txt 12", "Module ngx_http_autoindex_module"),
    _case("benign-js-chart-note", None, "AU2606 quote", "AU2606 612.35 CNY/g. Interactive chart: JavaScript is required for the chart.", "AU2606 gold futures"),
    # A fourth batch: frameworks' own pages and words that also mean something else, labelled first.
    _case("default-tomcat", NF, "Apache Tomcat/9.0.80", "If you're seeing this, you've successfully installed Tomcat. Congratulations!"),
    _case("default-django", NF, "The install worked successfully! Congratulations!", "View release notes for Django 5.1", "The install worked successfully! Congratulations!"),
    _case("js-vue-noscript-shown", BLOCKED, "Gold Desk", "We're sorry but Gold Desk doesn't work properly without JavaScript enabled. Please enable it to continue."),
    _case("error-db-connection", ERR, "Database Error", "Error establishing a database connection"),
    _case("error-next-client", ERR, "AU2606 quote", "Application error: a client-side exception has occurred (see the browser console for more information)."),
    _case("error-php-fatal", ERR, "Gold Desk", "Fatal error: Uncaught PDOException: could not find driver in /var/www/quote.php:12"),
    _case("error-zh-upgrading", ERR, "示例交易所", "网站升级中，请稍后访问。"),
    _case("gone-content-right-now", NF, "Gold Desk", "Sorry, this content isn't available right now. The link you followed may be broken, or the page may have been removed."),
    _case("age-gate-confirm-heading", DENIED, "Gold Spirits", "Yes, enter No, leave", "Please confirm you are over 18"),
    _case("region-zh-only", DENIED, "直播", "抱歉，该视频仅限中国大陆地区播放。"),
    _case("benign-article-moved-me", None, "Review: The Gold Standard", "This article has moved me more than any other this year. Rating 4.5/5", "Review: The Gold Standard"),
    _case("benign-hosting-help", None, "Email setup | Help", "Enter the server name and port 993. If the problem persists, contact your hosting provider.", "Email setup"),
    _case("benign-zh-paused-updates", None, "黄金历史数据_示例网", "本网站暂停更新，历史数据如下：黄金 456.78 元/克", "黄金历史数据"),
    _case("benign-signup-step", None, "One more step | Gold Desk", "Choose a password to finish signing up. Email Continue", "One more step"),
    _case("benign-js-help-title", None, "Enable JavaScript", "Open Settings, Site settings, JavaScript, and choose Sites can use JavaScript.", "Enable JavaScript"),
    _case("benign-zh-regional-delivery", None, "金条_示例商城", "金条 100 克 45,678.00 元 仅限北京地区配送", "金条 100 克"),
    _case("coming-soon-dated", NF, "Coming soon", "Coming soon Launching 01.12.2026. Stay tuned!", "Coming soon"),
    # The other languages of each class, labelled first.
    _case("js-fr", BLOCKED, "Cours", "Veuillez activer JavaScript pour afficher cette page."),
    _case("js-es", BLOCKED, "Cotización", "Para continuar, habilita JavaScript en tu navegador."),
    _case("moved-ja", NF, "お知らせ", "このページは移転しました。新しいURLをご確認ください。"),
    _case("moved-es", NF, "Aviso", "Esta página se ha trasladado a una nueva dirección."),
    _case("suspended-es", ERR, "Aviso", "Este sitio web ha sido suspendido por el proveedor."),
    _case("suspended-ja", ERR, "お知らせ", "このサイトは現在停止されています。"),
    _case("bot-check-ja", BLOCKED, "しばらくお待ちください", "ブラウザを確認しています…"),
    _case("bot-check-de", BLOCKED, "Einen Moment", "Überprüfung Ihres Browsers, bitte warten."),
    _case("region-fr", DENIED, "Avis", "Ce contenu n'est pas disponible dans votre pays."),
    _case("age-gate-fr", DENIED, "Vérification de l'âge", "Avez-vous plus de 18 ans ? Oui Non"),
    _case("age-gate-es", DENIED, "Bodega", "¿Eres mayor de edad? Sí No"),
    _case("consent-gate-zh", DENIED, "提示", "在您继续访问示例网之前，请同意我们使用 Cookie。 全部接受 全部拒绝", "在您继续访问示例网之前"),
    _case("consent-gate-fr", DENIED, "Avant d'accéder à Gold Desk", LONG_ARTICLE),
    _case("benign-fr-js-article", None, "Pourquoi activer JavaScript ? | Blog", LONG_ARTICLE, "Pourquoi activer JavaScript ?"),
    _case("benign-es-coming-soon-shelf", None, "Próximamente | Tienda", "Próximamente Lingote 1 kg 75.000,00 € Reservar", "Próximamente"),
    _case("benign-js-charts-note", None, "AU2606 quote", "AU2606 612.35 CNY/g. This site requires JavaScript for interactive charts.", "AU2606 gold futures"),
    _case("js-site-requires", BLOCKED, "Gold Desk", "This site requires JavaScript."),
    _case("benign-js-chart-needs", None, "AU2606 quote", "AU2606 612.35 CNY/g. The chart needs JavaScript to display.", "AU2606 gold futures"),
    _case("benign-js-chart-must", None, "AU2606 quote", "AU2606 612.35 CNY/g. JavaScript must be enabled to view the chart.", "AU2606 gold futures"),
    _case("benign-js-chart-required", None, "AU2606 quote", "AU2606 612.35 CNY/g. JavaScript is required to view the chart.", "AU2606 gold futures"),
    _case("js-required-to-view-page", BLOCKED, "Gold Desk", "JavaScript is required to view this page."),
    _case("benign-js-chart-please", None, "AU2606 quote", "AU2606 612.35 CNY/g. Please enable JavaScript to view the chart.", "AU2606 gold futures"),
    # Found by the agent probe (tools/probe_agent_verdicts.py, stand-in-coming-soon-ja): a teaser price under the heading.
    _case("coming-soon-ja-teaser", NF, "AU2606 金先物 | 準備中", "ただいま準備中です 公開までしばらくお待ちください。AU2606 999.99", "ただいま準備中です"),
    _case("benign-registrar-buy-button", None, "gold-desk.shop | Registrar", "gold-desk.shop is available! $12.99/yr Buy this domain", "gold-desk.shop"),
    _case("benign-video-not-in-hd", None, "AU2606 weekly | Gold TV", "This video is not available in HD. AU2606 closed at 612.35.", "AU2606 weekly"),
    _case("benign-ddos-footer", None, "AU2606 quote", "AU2606 612.35 CNY/g. DDoS protection by Example CDN.", "AU2606 gold futures"),
    _case("benign-before-checkout", None, "Before you continue to checkout | Shop", "Add a gift card? Gold bar 1 oz $2,345.00", "Before you continue to checkout"),
    # A banner announcing a redesign above the content is no placeholder (labelled first).
    _case("benign-redesign-banner", None, "AU2606 quote | Gold Desk", "Our new website is coming soon! Meanwhile, today's quote: AU2606 612.35", "AU2606 gold futures"),
    _case("benign-redesign-banner-zh", None, "金价_示例网", "新版网站即将上线。今日金价 456.78 元/克", "今日金价"),
    _case("benign-redesign-banner-de", None, "Goldpreis | Gold Desk", "Unsere neue Website ist im Aufbau. Goldpreis heute 2.345,10 €", "Goldpreis heute"),
    # A client-side app before it renders: the page shows nothing, and its readable text is the
    # <noscript> notice no browser running scripts shows (found by a plan probe, labelled first).
    BlockerCase(
        "benign-noscript-in-readable-text",
        _page("AU2606 gold futures quote | Gold Desk", "You need to enable JavaScript to run this app.", text_is_shown=False),
        None,
    ),
)
