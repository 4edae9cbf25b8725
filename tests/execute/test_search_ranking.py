"""The default ranking of a search page's links (runtime/execute/reads/search_results.rank_links), on
link lists as the page read returns them; the browser runs are in test_execute_search_results."""

from __future__ import annotations

from runtime.execute.reads.search_results import rank_links, search_terms

PAGE = "http://127.0.0.1:8000/3/search.html?q=json+encoder"


def link(href: str, text: str, *, navigation: bool = False) -> dict:
    return {"href": href, "key": f"{href}\n{text}", "text": text, "navigation": navigation, "visible": True}


def test_script_drawn_links_come_before_content_and_navigation_whatever_their_page_order() -> None:
    live = [
        link("http://127.0.0.1:8000/3/genindex.html", "index", navigation=True),
        link("http://127.0.0.1:8000/3/library/json.html", "JSON tips", navigation=True),
        link("http://127.0.0.1:8000/3/about.html", "About these documents"),
        link("http://127.0.0.1:8000/3/library/pickle.html", "pickle — Python object serialization"),
        link("http://127.0.0.1:8000/3/library/json.html#module-json", "json — JSON encoder and decoder"),
    ]
    served = [live[0]["key"], live[1]["key"], live[2]["key"]]  # the last two were drawn by script
    ranked = rank_links(PAGE, live, served, search_terms("json encoder site:docs.python.org", ["JSON encoder and decoder"]))
    assert [r.url.rsplit("/", 1)[-1] for r in ranked] == ["json.html#module-json", "pickle.html", "about.html", "genindex.html"]
    assert [r.why for r in ranked] == ["drawn by the page's script", "drawn by the page's script", "in the page's content", "an index page or the search page itself"]
    # The menu's json.html is the same page as the drawn result's #module-json: one entry, at its best.
    assert ranked[0].score == 2 * 3 + 1


def test_without_the_served_html_content_links_rank_by_shared_words_ahead_of_the_menu() -> None:
    live = [
        link("http://127.0.0.1:8000/guides/json-api.html", "JSON API", navigation=True),
        link("http://127.0.0.1:8000/docs/release-notes.html", "Release notes 4.2"),
        link("http://127.0.0.1:8000/docs/codecs/json.html", "Codecs: JSON encoder and decoder"),
        link("http://127.0.0.1:8000/3/search.html?q=json+encoder&page=2", "Next"),
    ]
    ranked = rank_links(PAGE, live, None, search_terms("json encoder decoder", []))
    assert [r.url.rsplit("/", 1)[-1] for r in ranked] == ["json.html", "release-notes.html", "json-api.html", "search.html?q=json+encoder&page=2"]
    assert ranked[0].why == "in the page's content" and ranked[2].why == "the page's navigation"
