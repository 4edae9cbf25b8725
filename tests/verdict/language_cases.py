"""Labelled pages in the languages the phrase sets came to last (VERDICT-045): Traditional Chinese,
Korean, Portuguese, Russian and Italian, one page per blocker or stand-in kind, each worded as a
site in that language words it, and benign pages per language that use the same words on pages
that are what they say (a quote page with a sign-in link in its header, a help article about an
error, a note that loading finished); and the usual wordings of the earlier languages that their
phrases missed ("お探しのページは存在しません", "Cette page n'existe pas"), as the heading of a long page.
Each was labelled before the detector was run on it.
"""

from __future__ import annotations

from runtime.execute.judges.page_blockers import PageSignals
from runtime.outcomes import BlockerKind
from tests.verdict.labelled_page import NAV_AND_FOOTER, BlockerCase

NF, LOGIN, CAPTCHA = BlockerKind.PAGE_NOT_FOUND, BlockerKind.LOGIN_REQUIRED, BlockerKind.CAPTCHA
DENIED, BLOCKED, RATE = BlockerKind.ACCESS_DENIED, BlockerKind.ACCESS_BLOCKED, BlockerKind.RATE_LIMITED
ERR, EMPTY = BlockerKind.SERVER_ERROR, BlockerKind.NO_SEARCH_RESULTS

# Articles long enough not to be short pages, each mentioning the words of a blocker in passing.
ARTICLE_ZH_HANT = "本報記者走訪多家網站後發現，使用者在瀏覽時遇到的各種錯誤頁面越來越常見，例如「找不到網頁」與「請先登入」。" * 8
ARTICLE_KO = "웹사이트를 이용하다 보면 '페이지를 찾을 수 없습니다'라는 안내를 종종 보게 됩니다. 주소를 잘못 입력했거나 글이 삭제된 경우입니다. " * 6
ARTICLE_PT = "Quem navega na internet já viu a mensagem Página não encontrada ou Acesso negado. Explicamos o que cada erro significa. " * 10
ARTICLE_RU = "Многие пользователи видят сообщение «Страница не найдена» или «Доступ запрещён». Рассказываем, что означает каждая ошибка. " * 10
ARTICLE_IT = "Chi naviga in rete ha visto spesso il messaggio Pagina non trovata o Accesso negato. Spieghiamo cosa significa ogni errore. " * 10


def _case(id: str, kind: BlockerKind | None, title: str = "", text: str = "", *headings: str, password: bool = False) -> BlockerCase:
    page = PageSignals(
        url="https://quotes.example/au2606", status=200, title=title, text=text, headings=headings, has_password_field=password
    )
    return BlockerCase(id, page, kind, kind is not None)


LANGUAGE_CASES: tuple[BlockerCase, ...] = (
    # --- Traditional Chinese (Taiwan, Hong Kong) ------------------------------------------------------
    _case("zh-hant-soft404", NF, "範例網", "很抱歉，您要找的網頁不存在或已被移除。返回首頁"),
    _case("zh-hant-login", LOGIN, "AU2606 行情 - 範例網", "此內容需要登入後才能瀏覽，請先登入。 登入 註冊"),
    _case("zh-hant-login-title", LOGIN, "請登入 | 範例網", NAV_AND_FOOTER, "請登入"),
    _case("zh-hant-session", LOGIN, "AU2606 行情", "登入逾時，請重新登入。 999.99"),
    _case("zh-hant-captcha", CAPTCHA, "安全驗證", "請輸入驗證碼以繼續。我不是機器人"),
    _case("zh-hant-denied", DENIED, "提示", "拒絕存取：您沒有權限瀏覽此頁面。"),
    _case("zh-hant-blocked", BLOCKED, "範例網", "系統偵測到您的網路有異常流量，您的存取已被封鎖。"),
    _case("zh-hant-rate", RATE, "提示", "請求過於頻繁，請稍後再試。"),
    _case("zh-hant-error", ERR, "範例網", "伺服器發生錯誤，請稍後再試。"),
    _case("zh-hant-maintenance", ERR, "範例交易所", "系統維護中，造成不便敬請見諒。"),
    _case("zh-hant-no-results", EMPTY, "搜尋 - 範例網", "很抱歉，找不到符合「AU2606」的搜尋結果。熱門 999.99"),
    _case("zh-hant-js", BLOCKED, "金價", "請啟用 JavaScript 以瀏覽本網站。"),
    _case("zh-hant-parked", NF, "quotes.example", "此網域出售中，歡迎洽詢。"),
    _case("zh-hant-coming-soon", NF, "網站建置中", "網站建置中，敬請期待！"),
    # The heading or title of a long page that says only what it is, in each language's whole sentence.
    _case("zh-hant-parked-title", NF, "此網域出售中", NAV_AND_FOOTER),
    _case("ko-soft404-heading", NF, "페이지를 찾을 수 없습니다 | 예시몰", NAV_AND_FOOTER, "페이지를 찾을 수 없습니다"),
    _case("ko-login-heading", LOGIN, "예시", NAV_AND_FOOTER, "로그인이 필요합니다"),
    _case("ko-denied-heading", DENIED, "예시", NAV_AND_FOOTER, "접근이 거부되었습니다"),
    _case("ko-rate-heading", RATE, "예시", NAV_AND_FOOTER, "요청이 너무 많습니다"),
    _case("ko-js-heading", BLOCKED, "예시", NAV_AND_FOOTER, "자바스크립트를 활성화해 주세요"),
    _case("ko-parked-heading", NF, "quotes.example", NAV_AND_FOOTER, "이 도메인은 판매 중입니다"),
    _case("pt-blocked-heading", BLOCKED, "Exemplo", NAV_AND_FOOTER, "Sua solicitação foi bloqueada"),
    _case("pt-no-results-heading", EMPTY, "Busca | Exemplo", NAV_AND_FOOTER, "Nenhum resultado encontrado"),
    _case("ru-blocked-heading", BLOCKED, "Пример", NAV_AND_FOOTER, "Ваш запрос заблокирован"),
    _case("ru-parked-heading", NF, "quotes.example", NAV_AND_FOOTER, "Этот домен продаётся"),
    _case("it-session-heading", LOGIN, "AU2606", NAV_AND_FOOTER, "La tua sessione è scaduta"),
    _case("it-no-results-heading", EMPTY, "Ricerca", NAV_AND_FOOTER, "Nessun risultato trovato"),
    # The earlier languages' other usual wordings, as the main heading of a long page.
    _case("ja-soft404-not-exist", NF, "例", NAV_AND_FOOTER, "お探しのページは存在しません"),
    _case("ja-login-heading", LOGIN, "例", NAV_AND_FOOTER, "ログインが必要です"),
    _case("ja-denied-restricted", DENIED, "例", NAV_AND_FOOTER, "アクセスが制限されています"),
    _case("de-soft404-not-exist", NF, "Beispiel", NAV_AND_FOOTER, "Die angeforderte Seite existiert nicht"),
    _case("de-denied-zugang", DENIED, "Beispiel", NAV_AND_FOOTER, "Zugang verweigert"),
    _case("de-login-einloggen", LOGIN, "Beispiel", NAV_AND_FOOTER, "Bitte loggen Sie sich ein"),
    _case("de-login-must", LOGIN, "Beispiel", NAV_AND_FOOTER, "Sie müssen angemeldet sein"),
    _case("fr-soft404-not-exist", NF, "Exemple", NAV_AND_FOOTER, "Cette page n'existe pas"),
    _case("fr-login-must", LOGIN, "Exemple", NAV_AND_FOOTER, "Vous devez être connecté"),
    _case("fr-denied-interdit", DENIED, "Exemple", NAV_AND_FOOTER, "Accès interdit"),
    _case("es-soft404-not-exist", NF, "Ejemplo", NAV_AND_FOOTER, "La página que buscas no existe"),
    _case("es-login-need", LOGIN, "Ejemplo", NAV_AND_FOOTER, "Necesitas iniciar sesión"),
    _case("es-login-heading", LOGIN, "Ejemplo", NAV_AND_FOOTER, "Inicia sesión para continuar"),
    _case("ru-soft404-not-exist", NF, "Пример", NAV_AND_FOOTER, "Страница не существует"),
    _case("ru-denied-limited", DENIED, "Пример", NAV_AND_FOOTER, "Доступ ограничен"),
    _case("ko-soft404-not-exist", NF, "예시", NAV_AND_FOOTER, "페이지가 존재하지 않습니다"),
    _case("benign-fr-404-help", None, "Liens cassés | Aide", "Si une page n'existe pas, vérifiez l'adresse ou utilisez la recherche.", "Liens cassés"),
    _case("benign-de-404-help", None, "Fehlerseiten | Hilfe", "Wenn eine Seite nicht existiert, zeigt der Server eine Fehlerseite.", "Fehlerseiten"),
    _case("benign-zh-hant-quote-login-link", None, "黃金價格_範例網", "黃金 1,234.56 元/克 更新時間 10:00 登入 註冊", "黃金價格"),
    _case("benign-zh-hant-404-article", None, "如何處理「找不到網頁」的錯誤 | 說明中心", ARTICLE_ZH_HANT, "如何處理「找不到網頁」的錯誤"),
    _case("benign-zh-hant-loading-done", None, "黃金價格_範例網", "載入完成。黃金 1,234.56 元/克 更新時間 10:00", "黃金價格"),
    # --- Korean ---------------------------------------------------------------------------------------
    _case("ko-soft404", NF, "예시몰", "요청하신 페이지를 찾을 수 없습니다. 입력하신 주소가 정확한지 다시 한번 확인해 주세요."),
    _case("ko-login", LOGIN, "AU2606 시세 | 예시", "로그인이 필요한 서비스입니다. 로그인 후 이용해 주세요."),
    _case("ko-session", LOGIN, "AU2606 시세", "세션이 만료되었습니다. 다시 로그인해 주세요. 999.99"),
    _case("ko-captcha", CAPTCHA, "보안 확인", "로봇이 아닙니다. 아래 보안문자를 입력해 주세요."),
    _case("ko-denied", DENIED, "안내", "접근이 거부되었습니다. 이 페이지에 대한 접근 권한이 없습니다."),
    _case("ko-blocked", BLOCKED, "예시", "비정상적인 트래픽이 감지되어 접근이 차단되었습니다."),
    _case("ko-rate", RATE, "안내", "요청이 너무 많습니다. 잠시 후 다시 시도해 주세요."),
    _case("ko-error", ERR, "예시", "일시적인 오류가 발생했습니다. 잠시 후 다시 시도해 주세요."),
    _case("ko-maintenance", ERR, "예시거래소", NAV_AND_FOOTER, "서비스 점검 중입니다"),
    _case("ko-no-results", EMPTY, "검색 | 예시", "'AU2606'에 대한 검색 결과가 없습니다. 인기 999.99"),
    _case("ko-js", BLOCKED, "시세", "이 사이트를 이용하려면 자바스크립트를 활성화해 주세요."),
    _case("ko-parked", NF, "quotes.example", "이 도메인은 판매 중입니다. 구매 문의는 아래로 연락해 주세요."),
    _case("ko-coming-soon", NF, "오픈 예정", "홈페이지 준비 중입니다. 곧 찾아뵙겠습니다."),
    _case("benign-ko-quote-login-link", None, "금 시세 | 예시", "금 1돈 412,000원 10:00 기준 로그인 회원가입", "금 시세"),
    _case("benign-ko-comment-box", None, "금 시세 | 예시", "금 1돈 412,000원 10:00 기준 댓글 0개 댓글을 쓰려면 로그인해 주세요.", "금 시세"),
    _case("benign-ko-404-article", None, "404 오류 해결 방법 | 도움말", ARTICLE_KO, "404 오류 해결 방법"),
    _case("benign-ko-loading-done", None, "금 시세 | 예시", "로딩 완료. 금 1돈 412,000원 10:00 기준", "금 시세"),
    # --- Portuguese (Brazil, Portugal) ------------------------------------------------------------------
    _case("pt-soft404", NF, "Exemplo Loja", "Ops! Página não encontrada. A página que você procura não existe ou foi removida."),
    _case("pt-login", LOGIN, "Cotação AU2606 | Exemplo", "Faça login para continuar lendo. Entrar Cadastre-se"),
    _case("pt-session", LOGIN, "Cotação AU2606", "Sua sessão expirou. Faça login novamente. 999.99"),
    _case("pt-captcha", CAPTCHA, "Verificação", "Confirme que você não é um robô. Não sou um robô"),
    _case("pt-denied", DENIED, "Acesso negado", "Você não tem permissão para acessar esta página."),
    _case("pt-blocked", BLOCKED, "Exemplo", "Sua solicitação foi bloqueada. Detectamos tráfego incomum vindo da sua rede."),
    _case("pt-rate", RATE, "Aviso", "Muitas solicitações. Tente novamente mais tarde."),
    _case("pt-error", ERR, "Exemplo", "Algo deu errado. Tente novamente em alguns minutos."),
    _case("pt-maintenance", ERR, "Exemplo Bolsa", NAV_AND_FOOTER, "Site em manutenção"),
    _case("pt-no-results", EMPTY, "Busca | Exemplo", "Nenhum resultado encontrado para AU2606. Populares 999.99"),
    _case("pt-js", BLOCKED, "Cotação", "Por favor, ative o JavaScript no seu navegador para continuar."),
    _case("pt-parked", NF, "quotes.example", "Este domínio está à venda. Faça uma oferta."),
    _case("pt-coming-soon", NF, "Em breve", "Site em construção. Em breve!", "Em breve"),
    _case("benign-pt-quote-login-link", None, "Cotação do ouro hoje | Exemplo", "Ouro R$ 412,35/g Atualizado 10:00 Entrar Cadastre-se", "Cotação do ouro hoje"),
    _case("benign-pt-comment-box", None, "Cotação do ouro hoje", "Ouro R$ 412,35/g Comentários (0) Faça login para comentar.", "Cotação do ouro hoje"),
    _case("benign-pt-404-article", None, "O que significa Página não encontrada? | Ajuda", ARTICLE_PT, "O que significa Página não encontrada?"),
    _case("benign-pt-loading-done", None, "Cotação do ouro", "Carregamento concluído. Ouro R$ 412,35/g", "Cotação do ouro"),
    # --- Russian --------------------------------------------------------------------------------------
    _case("ru-soft404", NF, "Пример", "Ошибка 404. Страница не найдена. Возможно, она была удалена или вы ошиблись в адресе."),
    _case("ru-login", LOGIN, "AU2606 котировки", "Войдите, чтобы продолжить. Войти Регистрация"),
    _case("ru-session", LOGIN, "AU2606", "Сессия истекла. Пожалуйста, войдите снова. 999.99"),
    _case("ru-captcha", CAPTCHA, "Проверка", "Подтвердите, что вы не робот. Я не робот"),
    _case("ru-denied", DENIED, "Доступ запрещён", "У вас нет прав для просмотра этой страницы."),
    _case("ru-blocked", BLOCKED, "Ой!", "Нам очень жаль, но запросы с вашего IP-адреса похожи на автоматические."),
    _case("ru-rate", RATE, "Ошибка", "Слишком много запросов. Попробуйте позже."),
    _case("ru-error", ERR, "Пример", "Что-то пошло не так. Попробуйте обновить страницу."),
    _case("ru-maintenance", ERR, "Пример биржа", NAV_AND_FOOTER, "Ведутся технические работы"),
    _case("ru-no-results", EMPTY, "Поиск", "По вашему запросу ничего не найдено. Популярное 999.99"),
    _case("ru-js", BLOCKED, "Котировки", "Для работы сайта необходимо включить JavaScript в браузере."),
    _case("ru-parked", NF, "quotes.example", "Этот домен продаётся. Узнать цену"),
    _case("ru-coming-soon", NF, "Пример", "Сайт находится в разработке. Скоро открытие!"),
    _case("benign-ru-quote-login-link", None, "Курс золота сегодня", "Золото 7 512,30 ₽/г Обновлено 10:00 Войти Регистрация", "Курс золота сегодня"),
    _case("benign-ru-comment-box", None, "Курс золота сегодня", "Золото 7 512,30 ₽/г Комментарии (0) Войдите, чтобы оставить комментарий.", "Курс золота сегодня"),
    _case("benign-ru-404-article", None, "Что делать, если страница не найдена | Справка", ARTICLE_RU, "Что делать, если страница не найдена"),
    _case("benign-ru-loading-done", None, "Курс золота", "Загрузка завершена. Золото 7 512,30 ₽/г", "Курс золота"),
    # --- Italian --------------------------------------------------------------------------------------
    _case("it-soft404", NF, "Esempio", "Spiacenti, la pagina che stai cercando non esiste. Torna alla home"),
    _case("it-login", LOGIN, "Quotazione AU2606", "Accedi per continuare a leggere. Accedi Registrati"),
    _case("it-session", LOGIN, "AU2606", "La tua sessione è scaduta. Accedi di nuovo. 999.99"),
    _case("it-captcha", CAPTCHA, "Verifica", "Conferma di non essere un robot. Non sono un robot"),
    _case("it-denied", DENIED, "Accesso negato", "Non hai l'autorizzazione per visualizzare questa pagina."),
    _case("it-blocked", BLOCKED, "Esempio", "La tua richiesta è stata bloccata: abbiamo rilevato traffico insolito."),
    _case("it-rate", RATE, "Avviso", "Troppe richieste. Riprova più tardi."),
    _case("it-error", ERR, "Esempio", "Si è verificato un errore. Riprova più tardi."),
    _case("it-maintenance", ERR, "Esempio Borsa", NAV_AND_FOOTER, "Sito in manutenzione"),
    _case("it-no-results", EMPTY, "Ricerca", "Nessun risultato per AU2606. Più cercati 999.99"),
    _case("it-js", BLOCKED, "Quotazioni", "Per utilizzare questo sito abilita JavaScript nel browser."),
    _case("it-parked", NF, "quotes.example", "Questo dominio è in vendita. Fai un'offerta."),
    _case("it-coming-soon", NF, "Prossimamente", "Sito in costruzione. Prossimamente online.", "Prossimamente"),
    _case("benign-it-quote-login-link", None, "Prezzo dell'oro oggi", "Oro 78,45 €/g Aggiornato alle 10:00 Accedi Registrati", "Prezzo dell'oro oggi"),
    _case("benign-it-js-help", None, "Come abilitare JavaScript | Assistenza", "Apri Impostazioni, Privacy e sicurezza, JavaScript e scegli Consentito.", "Come abilitare JavaScript"),
    _case("benign-it-loading-done", None, "Prezzo dell'oro", "Caricamento completato. Oro 78,45 €/g", "Prezzo dell'oro"),
)
