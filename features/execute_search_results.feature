Feature: A fallback search finds the result without being told where the results are
  Without a result_selector, the fallback search ranks the search page's links: the links the
  page's script drew after the server's HTML (Sphinx's JS search), then the page's content, then
  its own navigation (menus, sidebars, footers, index pages, the search page itself); within each,
  the links sharing more words with the query and the validation keywords first. So a dead link
  is recovered on a script-drawn search page and on a server-rendered one alike.

  @EXEC-046
  Scenario: A dead docs link is recovered through Sphinx's JS search with no result_selector
    Given the Sphinx-like docs site on loopback
    When I run "search/docs-dead-link-default" against the docs site
    Then the run ends "completed" with stop reason "completed"
    And the output title starts with "json"
    And the replan followed "/3/library/json.html" ranked first as "drawn by the page's script"
    And the docs site was never asked for "genindex.html" or "py-modindex.html"

  @EXEC-047
  Scenario: A dead portal link is recovered through a server-rendered search page with a big menu
    Given the documentation portal on loopback
    When I run "search/portal-dead-link" against the portal
    Then the run ends "completed" with stop reason "completed"
    And the output is {"title": "Codecs: JSON encoder and decoder", "since": "2.1"}
    And the replan followed "/docs/codecs/json.html" ranked first as "in the page's content"
    And the portal was never asked for any of "/guides/json-api.html", "/blog/json-decoder-tutorial.html", "/docs/release-notes-4.2.html", "/feed.json"
