r"""Did a request the fence refused carry the run's own data?

The run puts data into its pages: the text its acts type or choose (a recipe step's `type` or
`select`, an agent's model typing or choosing) and its secrets. A request that carries any of it
to an address the network policy refused is the page sending that data where the run may not go:
the act that put it there did not succeed, whatever the page says next (EXEC-101). A refused
request that carries none of it (an analytics pixel, an image) is only a refusal; so is one whose
data an allowed address also received (a search term in the site's own results URL, copied into
an off-domain analytics beacon with the page's address): the act's data got where it was going.

A value is looked for in the URL (decoded: `a+b`, `a%20b`) and in the body (raw, and decoded as
a form's body is), and in both inside JSON strings as JSON escapes it (`\"`, `\\`, `\u00eb`, a
form field holding JSON included), case and runs of spaces aside, and not as a part of a longer
ASCII word or number. A value shorter than SHORT_TEXT_CHARS ("2" in a quantity box) counts only as a whole field
of the request: a query or form parameter, a line of a multipart body, a JSON string or number.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl, unquote_plus, urlsplit

from runtime.browser.tab.sent_requests import SentRequest
from runtime.secrets import Secrets

SHORT_TEXT_CHARS = 3
URL_CHARS = 300


def normal(text: str) -> str:
    return " ".join(text.split()).casefold()


def carried_values(send: SentRequest, texts: dict[str, str]) -> dict[str, dict[str, str]]:
    """Which of `texts` (normal text -> how it may be shown) the request carried, by normal text:
    how it is shown, and where (`url` or `body`; each value once, in the URL first)."""
    if not texts:
        return {}
    url, body = unquote_plus(send.url), unquote_plus(send.body)
    places = {
        "url": ("\n".join(normal(text) for text in (url, _json_strings(url))), _fields(urlsplit(send.url).query)),
        "body": ("\n".join(normal(text) for text in (send.body, body, _json_strings(send.body), _json_strings(body))), _fields(send.body)),
    }
    found: dict[str, dict[str, str]] = {}
    for text, shown in texts.items():
        for where, (whole, fields) in places.items():
            if text in fields or (len(text) >= SHORT_TEXT_CHARS and _within(text, whole)):
                found[text] = {"value": shown, "in": where}
                break
    return found


# A JSON string literal: what a page sends as JSON carries a value with quotes, backslashes or
# (escaped by the sender) non-ASCII letters as \", \\ and \uXXXX, inside a longer string too.
_JSON_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def _json_strings(text: str) -> str:
    """The JSON string literals of `text` that escape anything, unescaped, one a line."""
    found: list[str] = []
    for literal in _JSON_STRING.finditer(text):
        if "\\" not in literal.group(0):
            continue  # nothing escaped: the text holds it as it is
        try:
            found.append(json.loads(literal.group(0)))
        except ValueError:
            continue
    return "\n".join(found)


def _within(text: str, whole: str) -> bool:
    """`text` in `whole`, not as a part of a longer ASCII word or number ("abc" is not in "abcdef")."""
    return re.search(rf"(?<![0-9a-z]){re.escape(text)}(?![0-9a-z])", whole) is not None


def shown_url(url: str, secrets: Secrets) -> str:
    """The URL as evidence may show it: a secret in it, however encoded, as its marker (the
    registry redacts a value's percent-encoded forms too, SECRET-007)."""
    return secrets.redact_text(url)[:URL_CHARS]


def _fields(text: str) -> set[str]:
    """The whole field values of a query or a body: form parameters, multipart lines, JSON leaves."""
    fields = {normal(value) for _, value in parse_qsl(text, keep_blank_values=False)}
    fields |= {normal(line) for line in text.splitlines() if line.strip()}
    try:
        parsed = json.loads(text) if text.lstrip()[:1] in ("{", "[") else None
    except ValueError:
        parsed = None
    fields |= {normal(str(leaf)) for leaf in _leaves(parsed)}
    return fields


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value] if isinstance(value, (str, int, float)) and not isinstance(value, bool) else []
