"""The words blocker pages use, per blocker kind, in English, Chinese (Simplified and Traditional:
a character class such as `[页頁]` takes both), Japanese, Korean, German, French, Spanish,
Portuguese, Russian and Italian. Data only; `page_blockers` decides where on a page a phrase counts.
The languages added last share one alternation per kind and tier: every page pays for each pattern.

Each kind has three tiers:

- `strong` phrases say what the page is ("verify you are human", "请求过于频繁"): they count when
  the title or main heading is about them, or anywhere on a short page;
- `weak` words also appear on ordinary pages ("captcha", "log in", "404", "登录"): they count only
  when a title segment or the main heading is about them and nothing else;
- `bare` words name a whole page only when it has almost nothing else ("Coming soon", "It works!",
  "敬请期待"): they count as a title segment or the main heading about them, on a bare page.

`stand_in_phrases` adds the words of pages that stand in for a site's content.

Patterns are written in lower case and matched against NFKC-normalised, lower-cased text with
curly apostrophes made straight (`phrase_set.compile_phrases`).
"""

from __future__ import annotations

import re

from runtime.execute.judges.phrase_set import PhraseSet
from runtime.execute.judges.phrase_set import compile_phrases as _compile
from runtime.execute.judges.stand_in_phrases import STAND_INS
from runtime.outcomes import BlockerKind

__all__ = ["FILLERS", "LOGIN_PATH", "PHRASES", "PhraseSet"]


# A search's query as a results page echoes it: "for “AU2606”", "与“AU2606”".
_QUERY = r"(?:\s*(?:for|matching|with|on)?\s*[\"“'‘«]?[^\"”'’»\n.!?]{0,60}[\"”'’»]?)?"
_QUERY_ZH = r"(?:与|和|关于|與|關於|符合)?(?:[“\"「].{0,40}?[”\"」]|[^\s，。,]{0,20}?)"

# The order is the order of precedence when a page shows several (a captcha on a rate-limit page
# is reported as rate_limited).
_OWN: tuple[PhraseSet, ...] = (
    PhraseSet(
        BlockerKind.RATE_LIMITED,
        _compile(
            r"too many requests",
            r"rate limit (?:exceeded|reached)",
            r"you(?:'ve| have) been rate[- ]limited",
            r"you are being rate[- ]limited",
            r"[请請]求[过過][于於][频頻]繁",
            r"请求太频繁",
            r"访问频率过高",
            r"访问过于频繁",
            r"访问太频繁",
            r"操作过于频繁",
            r"操作太频繁",
            r"请求次数过多",
            r"リクエストが多すぎます",
            r"アクセスが集中しています",
            r"zu viele anfragen",
            r"trop de requêtes",
            r"demasiadas solicitudes",
            r"요청(?:이|을)? 너무 많(?:습니다|아요)?|너무 많은 요청|muitas (?:solicitações|requisições)|demasiados pedidos|слишком много запросов|troppe richieste",
        ),
        _compile(r"\b429\b", r"\brate[- ]limited\b"),
    ),
    PhraseSet(
        BlockerKind.CAPTCHA,
        _compile(
            r"verify (?:that )?you(?:'re| are) (?:a )?human",
            r"are you (?:a )?(?:robot|human)\??",
            r"i'?m not a robot",
            r"confirm (?:that )?you(?:'re| are) not a robot",
            r"(?:complete|solve|enter) the (?:captcha|security check|challenge)",
            r"please complete the security check",
            r"enter the characters (?:you see|shown)",
            r"press (?:&|and) hold",
            r"人[机機][验驗][证證]",
            r"[请請]完成(?:安全)?[验驗][证證]",
            r"[输輸]入[验驗][证證][码碼]",
            r"拖动(?:下方)?滑块",
            r"向右滑动",
            r"ロボットではありません",
            r"画像認証",
            r"sind sie ein mensch",
            r"ich bin kein roboter",
            r"êtes-vous un robot",
            r"je ne suis pas un robot",
            r"no soy un robot",
            r"verifica que eres humano",
            r"我不是[机機]器人|로봇이 아닙니다|보안\s?문자를 입력(?:해 ?주세요|하세요)?|não sou um robô|(?:confirme|verifique) que (?:você )?não é um robô"
            r"|я не робот|(?:подтвердите|докажите),? что вы не робот|non sono un robot|(?:conferma|verifica) di non essere un robot",
        ),
        _compile(r"\b(?:re|h)?captcha\b", r"\brobot check\b", r"\bsecurity check\b", r"[验驗][证證][码碼]", r"安全[验驗][证證]", r"安全[检檢]查"),
    ),
    PhraseSet(
        BlockerKind.ACCESS_BLOCKED,
        _compile(
            r"you have been blocked",
            r"request (?:was |has been )?blocked",
            r"unusual traffic",
            r"automated (?:queries|requests|traffic)",
            r"bot (?:detection|protection)",
            r"checking (?:your browser|if the site connection is secure)",
            r"attention required",
            r"the requested url was rejected",
            r"incapsula incident",
            r"access to this page has been denied",
            r"pardon our interruption",
            r"访问被拦截",
            r"请求被拦截",
            r"疑似机器人",
            r"[异異]常流量",
            r"检测到异常访问",
            r"アクセスがブロックされました",
            r"ihre anfrage wurde blockiert",
            r"requête bloquée",
            r"solicitud bloqueada",
            r"(?:存取|訪問|請求)(?:已)?被(?:封鎖|攔截)|비정상적인 (?:트래픽|접근)|(?:접근|요청)이 차단(?:되었습니다)?|(?:sua )?(?:solicitação|requisição|acesso) (?:foi )?bloquead[oa]"
            r"|tráfego (?:incomum|suspeito)|(?:ваш\w* )?(?:запрос|доступ)\w* (?:был\w* )?заблокирован\w*|похожи на автоматические|(?:la tua )?richiesta (?:è stata )?bloccata|traffico insolito",
        ),
        _compile(r"\b(?:access )?blocked\b", r"已被拦截"),
    ),
    PhraseSet(
        BlockerKind.LOGIN_REQUIRED,
        _compile(
            r"(?:log|sign) ?in to (?:continue|view|see|access|read)",
            r"you (?:must|need to) (?:be logged in|be signed in|log ?in|sign ?in)",
            r"log ?in required",
            r"sign[- ]?in required",
            r"[请請]先登[录錄入]",
            r"[请請]登[录錄入][后後]",
            r"登[录錄入][后後](?:查看|继续|繼續|访问|訪問|浏览|瀏覽|才能|可见|可見|阅读|閱讀)",
            r"需要登[录錄入]",
            r"您(?:还|還|尚)?未登[录錄入]",
            r"ログインしてください",
            r"ログインが必要(?:です)?",
            r"bitte (?:melden|loggen) sie sich (?:an|ein)",
            r"sie müssen (?:sich )?(?:angemeldet sein|anmelden|einloggen)",
            r"anmeldung erforderlich",
            r"veuillez vous connecter",
            r"connectez-vous pour",
            r"vous devez (?:être connectée?|vous connecter)",
            r"inicia sesión para(?: (?:continuar|ver|acceder|leer)\b)?",
            r"(?:debes|debe|necesitas|necesita|tienes que) iniciar sesión",
            r"로그인이 필요(?:합니다|한 (?:서비스|페이지)입니다)?|faça (?:o )?login para (?:continuar|ver|acessar|ler|visualizar)|(?:você )?precisa (?:fazer login|entrar)|(?:é )?necessário (?:fazer login|iniciar sessão)"
            r"|войдите,? чтобы (?:продолжить|увидеть|просмотреть|читать|прочитать|получить доступ)|(?:необходимо|нужно) (?:войти|авторизоваться)|требуется (?:авторизация|вход)"
            r"|accedi per (?:continuare|visualizzare|leggere|vedere)|devi (?:effettuare l'accesso|accedere)|(?:è )?necessario (?:effettuare l'accesso|accedere)",
            # A paywall, and an expired session: a login wall in other words.
            r"subscribe (?:now )?to (?:continue|keep) reading",
            r"you(?:'ve| have) been (?:logged|signed) out",
            r"(?:your )?session (?:has )?(?:expired|timed out)",
            r"(?:log|sign) ?in again",
            r"登[录錄入](?:状态|狀態)?(?:已)?(?:过期|過期|超时|超時|逾時|失效)",
            r"会话(?:已)?(?:过期|超时|失效)",
            r"[请請]重新登[录錄入]",
            r"セッション(?:の有効期限)?が切れ",
            r"再(?:度)?ログイン",
            r"(?:ihre )?sitzung ist abgelaufen",
            r"melden sie sich erneut an",
            r"(?:votre )?session a expiré",
            r"veuillez vous reconnecter",
            r"(?:su )?sesión (?:ha )?(?:expirado|caducado)",
            r"vuelva a iniciar sesión",
            r"세션이 만료(?:되었습니다)?|다시 로그인(?:해 ?주세요|하세요)?|(?:sua )?sessão expirou|sessão expirada|faça (?:o )?login novamente|сесси[яи] (?:истекла|устарела)|войдите (?:снова|ещё раз|еще раз)"
            r"|(?:la tua |la )?sessione (?:è )?scaduta|accedi di nuovo",
        ),
        _compile(
            r"\b(?:log ?in|sign[- ]?in|login)\b",
            r"登录",
            r"登入",
            r"ログイン",
            r"\banmelden\b",
            r"\bse connecter\b",
            r"\bconnexion\b",
            r"\biniciar sesión\b",
            r"로그인|\b(?:entrar|fazer login|войти|вход|accedi)\b",
            r"(?:subscription|subscribers?|members) only",
        ),
    ),
    PhraseSet(
        BlockerKind.PAGE_NOT_FOUND,
        _compile(
            r"page not found",
            r"page (?:can(?:no|')t|could ?n[o']t|could not) be found",
            r"page (?:does ?n[o']t|does not) exist",
            r"(?:this|the) page (?:is|has been) (?:gone|removed|deleted)",
            r"404 not found",
            r"error 404",
            r"[页頁]面不存在",
            r"[网網][页頁]不存在",
            r"找不到(?:该|該|此|您要的)?(?:[页頁]面|[网網][页頁])",
            r"[页頁]面(?:找不到|未找到|已删除|已刪除|走丢了|丢失了)",
            r"ページが見つかりません",
            r"ページは見つかりませんでした",
            r"(?:この|お探しの)?ページ(?:は|が)存在しません",
            r"seite (?:wurde )?nicht gefunden",
            r"(?:die|diese) (?:angeforderte |gesuchte )?seite existiert nicht",
            r"page introuvable",
            r"(?:cette|la) page (?:demandée |que vous (?:cherchez|recherchez) )?n'existe pas",
            r"page non trouvée",
            r"página no encontrada",
            r"no se encontró la página",
            r"(?:la|esta) página (?:que (?:buscas|busca|solicitaste) )?no existe",
            r"(?:요청하신 )?페이지를 찾을 수 없(?:습니다|어요)?|페이지가 존재하지 않(?:습니다)?|(?:존재하지 않는|삭제된) 페이지|página não (?:encontrada|existe)|página (?:que (?:você )?(?:procura|solicitou) )?não (?:foi encontrada|existe)"
            r"|страница не найдена|(?:такой )?страниц[аы] не существует|pagina non trovata|pagina (?:che stai cercando |richiesta )?non (?:esiste|è stata trovata)",
            r"(?:can(?:no|')t|could ?n[o']t|could not|were unable to|are unable to|unable to) (?:find|locate) "
            r"(?:the |that |this |your |any )?(?:page|item|product|listing|content|article)(?: you(?:'re| are) looking for| you requested)?",
            r"(?:page|item|product|content|article|listing|url|resource) (?:you(?:'re| are| were)? )?"
            r"(?:looking for|requested|tried to (?:reach|access|open))(?: [\w'-]+){0,3}? "
            r"(?:does ?n[o']t exist|is ?n[o']t here|can(?:no|')t be found|could ?n[o']t be found|could not be found|was not found"
            r"|is no longer available|(?:has|may have) (?:been )?(?:moved|removed|deleted))",
            r"requested (?:url|page|resource)(?: \S+)? was not found",
            # What a page was about is gone: a delisted item. (A listing that has ended is a page
            # about the listing, judged by its keywords: the honesty corpus's sold-out page.)
            r"(?:this|the) (?:item|product|listing|offer|page|content|article|contract|instrument) (?:is|has been) (?:no longer available|discontinued|removed|delisted)",
            r"商品(?:已)?(?:下架|不存在)",
            r"(?:该|此)?(?:商品|内容|页面)已(?:下架|失效|被删除)",
            r"この商品は(?:現在)?(?:取り扱って|販売して)(?:おりません|いません)",
            r"(?:dieser |diese |dieses |der |die |das )?(?:artikel|produkt|seite|angebot) ist nicht mehr verfügbar",
            r"(?:cet |cette |ce |l')?(?:article|produit|page|offre) n'est plus disponible",
            r"(?:este |esta |el |la )?(?:artículo|producto|página|oferta) ya no está disponible",
        ),
        _compile(
            r"\b404\b",
            r"\bnot found\b",
            r"找不到",
            r"不存在",
            # "AU2606 is no longer available", "Product not found", "合约不存在" as the title or main
            # heading: a page about the absence of what it names.
            r"(?:\S+\s+){0,4}?(?:is|are|has been|was) (?:no longer available|discontinued|delisted)",
            r"(?:[\w-]+\s+){0,3}?(?:not found|(?:is|was) ?n[o']t found|(?:does|did) ?n[o']t exist|no longer exists)",
            # Not "Service unavailable": that is a server's error, not a missing page.
            r"(?:\S+\s+){0,2}?(?:page|content|video|item|product|listing|post|article|contract|instrument|quote|symbol)s? "
            r"(?:unavailable|(?:is|was) ?n[o']t available)",
            r"[^\s，。！、]{0,10}(?:不存在|已下架|已失效|未找到)",
            r"[^\s、。！]{0,12}が見つかりません(?:でした)?",
            r"(?:\S+\s+){0,3}?(?:wurde )?nicht gefunden",
            r"(?:\S+\s+){0,3}?introuvable",
            r"(?:\S+\s+){0,3}?(?:no encontrad[oa]|não encontrad[oa]|non trovat[oa]|не найден[аы]?\b)",
            r"(?:\S+\s+){0,4}?(?:ist )?nicht mehr verfügbar",
            r"(?:\S+\s+){0,4}?n'est plus disponible",
            r"(?:\S+\s+){0,4}?ya no está disponible",
            r"販売終了",
        ),
    ),
    PhraseSet(
        BlockerKind.NO_SEARCH_RESULTS,
        # The query a heading echoes ("No results for “AU2606”") belongs to the phrase.
        _compile(
            r"no (?:search )?results (?:were )?(?:found|match)" + _QUERY,
            r"no (?:search )?results for" + _QUERY,
            r"(?:we )?(?:found|returned) no (?:search )?results" + _QUERY,
            r"your search" + _QUERY + r" (?:did not|didn't) match any",
            r"(?:(?:没有|沒有|未)(?:找到|搜索到|搜尋到|检索到|檢索到)|找不到)" + _QUERY_ZH
            + r"(?:相关|相關|匹配|符合条件|符合條件)?的?(?:搜[索尋])?(?:结果|結果|内容|內容|商品|记录|記錄)",
            r"(?:[无無]|[暂暫][无無])(?:相[关關]|搜[索尋])?[结結]果",
            r"検索結果(?:は|が)?(?:ありません|0件)",
            r"に一致する(?:情報|結果|ページ)は見つかりませんでした",
            r"keine (?:ergebnisse|treffer)(?: gefunden)?",
            r"aucun résultat",
            r"no se (?:encontraron|han encontrado) resultados",
            r"검색 결과가 없습니다|nenhum resultado(?: encontrado)?|nessun risultato(?: trovato)?|ничего не найдено",
            r"nothing (?:matches|matched) your search",
            r"\b0 results (?:found|for)" + _QUERY,
        ),
        _compile(r"\bno results\b", r"\bnothing found\b"),
    ),
    PhraseSet(
        BlockerKind.ACCESS_DENIED,
        _compile(
            r"access (?:is )?denied",
            r"permission denied",
            r"you (?:do not|don't) have permission",
            r"403 forbidden",
            r"(?:访问|訪問|存取)(?:被|遭)拒",
            r"拒[绝絕](?:访问|訪問|存取)",
            r"[无無][权權](?:限)?(?:访问|訪問|存取|瀏覽)",
            r"[没沒]有(?:访问|訪問|存取)?[权權]限",
            r"アクセス(?:が|は)(?:拒否されました|制限されています)",
            r"(?:is |are )?not available in your (?:country|region|location)",
            r"(?:您所在的)?(?:地区|国家)(?:暂)?(?:无法|不能)访问",
            r"zug(?:riff|ang) verweigert",
            r"accès (?:refusé|interdit)",
            r"acceso denegado",
            r"(?:접근|액세스)(?:이|가)? 거부(?:되었습니다|됨)?|접근 권한이 없(?:습니다)?|acc?esso neg(?:ado|ato)|não tem permissão para|доступ (?:запрещ[её]н|закрыт|ограничен)"
            r"|нет прав (?:для|на) (?:просмотра|доступа)|non hai (?:l'autorizzazione|i permessi)",
        ),
        _compile(r"\bforbidden\b", r"\b40[13]\b", r"\bunauthori[sz]ed\b"),
    ),
    PhraseSet(
        BlockerKind.SERVER_ERROR,
        _compile(
            r"internal server error",
            r"service (?:is )?(?:temporarily )?unavailable",
            r"bad gateway",
            r"gateway time-?out",
            r"(?:服务器|伺服器|服務器)(?:内部|內部)?(?:发生|發生)?(?:错误|錯誤)",
            r"服务(?:暂时)?不可用",
            r"系[统統]繁忙",
            r"サーバーエラー",
            r"interner serverfehler",
            r"erreur interne du serveur",
            r"error interno del servidor",
            # A generic error in the place of the content.
            r"something went wrong(?: on our (?:end|side)| here)?",
            # A site down for maintenance shows no content: a server error of its own kind.
            r"(?:site|service|system|website|page|we) (?:is|are|'re) (?:currently |temporarily )?(?:down for|under(?: scheduled)?) maintenance",
            r"系[统統](?:正在)?(?:升[级級])?[维維][护護](?:中)?",
            r"メンテナンス中",
            r"wegen wartungsarbeiten",
            r"en (?:cours de )?maintenance",
            r"en mantenimiento",
            r"(?:we(?:'re| are)) having (?:some )?trouble (?:loading|showing|displaying) (?:this|the) (?:page|content)",
            r"an? (?:unexpected |unknown |internal )?error (?:has )?occurred",
            r"出了(?:点|一些)?问题",
            r"(?:发生|出现)了?(?:未知|意外)?错误",
            r"系统(?:异常|错误)",
            r"(?:エラー|問題)が発生しました",
            r"ein (?:unerwarteter )?fehler ist aufgetreten",
            r"etwas ist schiefgelaufen",
            r"une erreur (?:inattendue )?(?:s'est produite|est survenue)",
            r"(?:se ha producido|ha ocurrido) un error",
            r"algo salió mal",
            r"서버 (?:내부 )?오류|오류가 발생(?:했습니다|하였습니다)|(?:서비스|시스템|서버) 점검 ?중(?:입니다)?|erro interno (?:do|no) servidor|ocorreu um erro|algo deu errado"
            r"|(?:(?:site|sistema|serviço) )?(?:está )?em manutenção|внутренняя ошибка сервера|что-то пошло не так|произошла (?:непредвиденная )?ошибка"
            r"|(?:ведутся|проводятся) (?:технические|профилактические) работы|на техническом обслуживании|errore interno del server"
            r"|si è verificato un errore|qualcosa è andato storto|(?:(?:sito|sistema|servizio) )?(?:è )?in manutenzione",
        ),
        _compile(r"\b50[0-4]\b", r"(?:[\w'-]+\s+){0,3}?(?:down for|under(?: scheduled)?) maintenance"),
    ),
)

# The pages that stand in for a site's content (a default page, a parked domain, a gate ...) add
# their words to the kinds they are.
_MORE = {more.kind: more for more in STAND_INS}
PHRASES: tuple[PhraseSet, ...] = tuple(own.joined(_MORE[own.kind]) if own.kind in _MORE else own for own in _OWN)

# Words that may stand around a blocker phrase in a title or heading without making it about
# something else: "Oops! 404 - Page not found", "抱歉，您访问的页面不存在".
FILLERS = re.compile(
    r"\b(?:oops|whoops|sorry|uh|oh|hmm|error|http|status|code|the|this|that|we|we're|it|it's|looks|like|seems|"
    r"please|here|is|are|you|your|to|for|a|an|again|later|try|wait|we've|there)\b|\b\d{3}\b"
    r"|抱歉|对不起|哎呀|啊哦|糟糕|很遗憾|您访问的|你访问的|您要访问的|您所访问的|您要找的|你要找的|该|此|出错了|错误|请稍后再试|请稍后重试"
    r"|申し訳ございません|申し訳ありません|エラー|お探しの|entschuldigung|fehler|désolé|erreur|lo sentimos"
    r"|请|請|죄송합니다|오류|desculpe|ops|errore|erro|spiacenti|извините|ошибка",
    re.IGNORECASE,
)

# Paths of sign-in pages, for "the request was redirected to a login page".
LOGIN_PATH = re.compile(
    r"/(?:log-?in|sign-?in|signin|sign_in|auth|sso|passport|session/new|users/sign_in|accounts?/log-?in)(?:/|\.|$)",
    re.IGNORECASE,
)
