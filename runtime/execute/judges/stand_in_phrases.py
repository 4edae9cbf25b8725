"""The words of pages an allowed site answers with HTTP 200 that stand in for its content, per the
blocker kind a user would expect, in English, Chinese, Japanese, German, French and Spanish. Data
only, in the tiers `phrase_set.PhraseSet` describes; `blocker_phrases` adds them to its kinds.

- page_not_found: the content asked for is not at this address. A web server's default page (no
  site is configured there), a parked, for-sale or expired domain, "coming soon" and "under
  construction", a directory listing (the server's index of files, not a page), a "this page has
  moved" notice.
- server_error: the site is out of service, like one down for maintenance: a hosting account
  suspended, a bandwidth quota exceeded.
- access_denied: the content is withheld until the visitor is someone or declares something the
  run cannot be or declare for its user: a region block (as before), an age gate, a consent gate.
- access_blocked: a bot wall. A page that still asks for JavaScript in a browser that runs it, or
  that checks the browser before it lets it in, will not show the content by retrying.
"""

from __future__ import annotations

from runtime.execute.judges.phrase_set import PhraseSet
from runtime.execute.judges.phrase_set import compile_phrases as _compile
from runtime.outcomes import BlockerKind

_AGE = r"(?:1[6-9]|2[01])"
_NAME = r"[\w .'&-]{1,40}"  # a site's name, as a consent gate says it

STAND_INS: tuple[PhraseSet, ...] = (
    PhraseSet(
        BlockerKind.PAGE_NOT_FOUND,
        _compile(
            # A web server's default page.
            r"if you (?:can )?see this page, the [\w ]{1,20} web server is successfully installed",
            r"apache2? (?:ubuntu |debian |centos )?default page(?:\s*:\s*it works!?)?",
            r"test page for (?:the )?(?:apache|nginx)(?: http)?(?: server)?(?: on [\w .]{1,30})?",
            r"this page is used to test the proper operation of (?:the )?(?:apache|nginx)",
            r"default welcome page used to test the correct operation",
            r"your web server is working\. now make it work for you",
            r"(?:恭喜[,，!！]?\s*)?站点创建成功",
            r"这是默认的?\s?index\.html",
            r"没有找到(?:对应的)?站点",
            # A parked, for-sale or expired domain.
            r"(?:this |the )?domain(?: name)?(?: [\w.-]+)? (?:is|may be) for sale",
            r"[\w-]+(?:\.[\w-]+)+ (?:is|may be) for sale",
            r"buy this domain",
            r"(?:make an offer|inquire) (?:on|about|for) this domain",
            r"this domain (?:name )?(?:has expired|is parked)",
            r"(?:此|该|本)?域名(?:正在|已)?(?:出售|转让|待售)",
            r"(?:此|该|本)?域名已(?:过期|到期)",
            r"このドメインは(?:現在)?(?:販売中|売り出し中|売却可能)",
            r"このドメインは.{1,20}で取得されています",
            r"(?:diese |die )?domain (?:steht )?zum verkauf",
            r"diese domain kaufen",
            r"(?:ce )?(?:nom de )?domaine (?:est )?à vendre",
            r"(?:este )?dominio (?:está )?(?:a la venta|en venta)",
            # A site or page that is not there yet.
            r"(?:our |the |this )?(?:new )?(?:web ?site|site|store|shop|page|blog) (?:is|will be) "
            r"(?:coming soon|under construction|launching soon|live soon)",
            r"(?:web ?site|site|page) (?:is )?(?:currently )?under construction",
            r"we(?:'re| are)(?: launching soon| working hard on (?:something|our|the|a) new)",
            r"(?:网站|网页|页面|站点|本站)(?:正在)?(?:建设|施工|装修)中",
            r"(?:网站|网页|页面|站点|本站)即将(?:上线|开放)",
            r"(?:ただいま|現在)(?:準備中|工事中|構築中)",
            r"(?:サイト|ページ|ホームページ)(?:は)?(?:ただいま|現在)?(?:準備中|工事中|構築中)",
            r"(?:diese |unsere )?(?:website|webseite|seite|homepage) (?:befindet sich |ist )?(?:noch |gerade )?im aufbau",
            r"(?:site|page) (?:web )?(?:est )?en (?:cours de )?construction",
            r"(?:sitio|página|web) (?:web )?(?:está )?en construcción",
            # A server's index of files.
            r"\[to parent directory\]",
            # A "this page has moved" notice.
            r"(?:this|the) (?:page|site|website|content|article|document|blog) (?:has |was )?(?:moved|been moved|relocated)"
            r"(?: permanently)?(?: (?:to|here)\b[^.!]{0,40})?",
            r"we(?:'ve| have) moved to a new (?:address|site|website|home|domain|location)",
            r"please update your bookmarks?",
            r"(?:本|该|此)?(?:页面|网页|网站|站点|内容)已(?:迁移|搬迁|移至|转移)",
            r"已迁移至新(?:地址|网址|域名)",
            r"(?:このページ|このサイト|ホームページ|サイト)は移転しました",
            r"(?:diese |die )?(?:seite|website|webseite) (?:ist umgezogen|wurde verschoben)",
            r"wir sind umgezogen",
            r"(?:cette |la )?(?:page|site) a (?:été )?(?:déplacée?|déménagé)",
            r"nous avons déménagé",
            r"(?:esta |la )?(?:página|web|sitio) se ha (?:movido|trasladado)",
            r"nos hemos mudado",
        ),
        _compile(
            r"welcome to (?:nginx|openresty|tengine)!?",
            r"iis windows server",
            r"internet information services",
            r"iis ?[78](?:\.5)?",
            r"caddy works!?",
            r"index of /\S*",
            r"directory listing (?:for|of) /\S*",
            r"moved permanently",
            r"we(?:'ve| have) moved!?",
            r"移転しました",
        ),
        _compile(
            r"it works!?",
            r"coming soon!?",
            r"under construction",
            r"stay tuned!?",
            r"(?:launching|opening) soon!?",
            r"敬请期待",
            r"即将(?:上线|推出|开放)",
            r"準備中(?:です)?",
            r"工事中(?:です)?",
            r"近日公開",
            r"(?:demnächst|bald) verfügbar",
            r"im aufbau",
            r"baustelle",
            r"bientôt disponible",
            r"prochainement",
            r"en construction",
            r"próximamente",
            r"en construcción",
        ),
    ),
    PhraseSet(
        BlockerKind.SERVER_ERROR,
        _compile(
            r"(?:this |the |your )?(?:hosting )?account (?:has been|is|was) suspended",
            r"(?:this |the )?(?:web ?site|site|domain) (?:has been|is|was) (?:suspended|deactivated)",
            r"bandwidth limit (?:exceeded|reached)",
            r"(?:reached|exceeded) (?:his/her|his|her|their|its|the) (?:monthly )?bandwidth (?:limit|quota)",
            r"contact your hosting provider",
            r"(?:该|此|本)?(?:网站|站点|空间)(?:已)?(?:被)?(?:暂停|停用|关停|冻结)(?:访问|服务|使用)?",
            r"(?:このサイト|このウェブサイト|このアカウント)は(?:現在)?(?:停止|凍結)(?:されて|して)(?:います|おります)",
            r"(?:diese |die )?(?:website|webseite|domain) (?:wurde |ist )?(?:vom anbieter |vorübergehend )*(?:gesperrt|deaktiviert)",
            r"(?:dieses |das )?(?:webhosting|hosting)(?:-?paket|-?konto)? (?:wurde |ist )?gesperrt",
            r"(?:ce |le )?(?:site|compte d'hébergement)(?: web)? a été (?:suspendu|désactivé)",
            r"(?:este |el )?(?:sitio|dominio|cuenta de hosting)(?: web)? (?:ha sido|está) suspendid[oa]",
        ),
        _compile(r"account suspended", r"(?:web)?site suspended", r"compte suspendu", r"site suspendu", r"cuenta suspendida"),
    ),
    PhraseSet(
        BlockerKind.ACCESS_DENIED,
        _compile(
            # A region block.
            r"(?:is ?n't|is not|are ?n't|are not|not) (?:currently )?available in your (?:country|region|location|area)",
            r"unavailable in your (?:country|region|location|area)",
            r"unavailable (?:for|due to) legal reasons",
            r"(?:在)?您(?:当前)?所在(?:的)?(?:地区|国家|区域)(?:暂)?(?:不可用|无法(?:访问|使用|观看|播放)|不支持|不提供)",
            r"(?:お住まいの|ご利用の)(?:地域|国)(?:では|からは)(?:ご利用|視聴|アクセス)(?:いただけません|できません)",
            r"in (?:ihrem|deinem) land (?:leider )?nicht verfügbar",
            r"in (?:ihrer|deiner) region (?:leider )?nicht verfügbar",
            r"(?:n'est )?pas disponible dans votre (?:pays|région)",
            r"no (?:está )?disponible en (?:tu|su) (?:país|región)",
            # An age gate.
            rf"are you (?:at least |over )?{_AGE}(?: years old| years of age)?(?: or older| or over)?\?",
            rf"you must be (?:at least |over )?{_AGE}(?: years)?(?: old| of age)?(?: or older| or over)? to (?:enter|view|access|visit|continue)",
            r"(?:please )?(?:verify|confirm) (?:your age|(?:that )?you are of legal (?:drinking )?age)",
            r"(?:please )?enter your (?:date of birth|birth ?date) to (?:continue|enter|view)",
            r"(?:您|你)?是否(?:已)?(?:年满|满)\s?1[68]\s?(?:周岁|岁)",
            r"未满\s?1[68]\s?(?:周)?岁(?:者)?(?:禁止|请勿|不得)",
            r"(?:あなたは)?(?:18|20)歳以上ですか",
            rf"(?:bist du|sind sie) (?:mindestens |über )?{_AGE}(?: jahre)?(?: alt)?\?",
            rf"avez-vous (?:au moins |plus de )?{_AGE} ans",
            rf"(?:eres|es usted) mayor de (?:edad|{_AGE})",
        ),
        _compile(
            r"unavailable for legal reasons",
            r"age (?:verification|check|gate)",
            r"verify your age",
            r"年龄(?:验证|确认)",
            r"年齢(?:確認|認証)",
            r"alters(?:verifikation|überprüfung|prüfung|bestätigung|kontrolle)",
            r"vérification (?:de l'|d')âge",
            r"verificación de (?:la )?edad",
            # A consent gate in the place of the site ("Before you continue to ...").
            rf"before you continue to {_NAME}",
            rf"bevor sie zu {_NAME} weitergehen",
            rf"avant d'accéder à {_NAME}",
            rf"antes de (?:continuar|ir) a {_NAME}",
            r"在您继续(?:访问|使用).{0,20}之前",
        ),
    ),
    PhraseSet(
        BlockerKind.ACCESS_BLOCKED,
        _compile(
            # A page whose script must run first.
            r"(?:you need to|you must|please|kindly) (?:enable|turn on|activate) javascript(?: and cookies)? "
            r"(?:to|in order to|and (?:reload|refresh))",
            r"enable javascript and cookies to continue",
            r"javascript is (?:required|disabled)(?: (?:to|in your browser|on your browser|for this (?:site|page|app)))?",
            r"(?:this|the) (?:app|site|website|page|application) (?:requires|needs) javascript",
            r"(?:requires|needs) javascript to (?:run|work|function|load|display|be enabled)",
            r"please enable js and disable any ad ?blocker",
            r"(?:请|需要|必须)(?:先)?(?:启用|开启|打开|允许)\s?javascript",
            r"javascript\s?(?:已被|被|已)?禁用",
            r"javascript\s?(?:を|が)(?:有効|オン)に(?:してください|する必要があります|なっていません)",
            r"javascript\s?(?:が|は)無効",
            r"(?:bitte )?aktivieren sie javascript",
            r"javascript (?:ist )?deaktiviert",
            r"javascript muss aktiviert",
            r"(?:veuillez )?(?:activer|activez) (?:le )?javascript",
            r"(?:habilita|habilite|activa|active) (?:el )?javascript",
            r"javascript (?:está )?desactivado",
            # A browser check before the site lets the browser in.
            r"(?:please wait while we|we are|we're) (?:verify(?:ing)?|check(?:ing)?) (?:your browser|(?:that )?you are (?:a )?human)",
            r"verifying (?:that )?you are (?:a )?human",
            r"verifying your browser",
            r"needs to review the security of your connection",
            r"ddos protection by",
            r"stand by,? while we are checking",
            r"正在(?:验证|检查|检测)(?:您的|你的)?浏览器",
            r"正在进行安全(?:验证|检查|检测)",
            r"ブラウザ(?:を|の)(?:確認|チェック)(?:しています|中)",
            r"(?:überprüfung|prüfung) (?:ihres|deines) browsers",
            r"(?:wir )?(?:überprüfen|prüfen) (?:ihren|deinen) browser",
            r"vérification (?:de votre|du) navigateur",
            r"nous vérifions votre navigateur",
            r"(?:comprobando|verificando) (?:tu|su) navegador",
        ),
        _compile(r"just a moment\.*", r"one more step", r"javascript (?:is )?(?:required|disabled)", r"enable javascript"),
    ),
)
