Feature: Every element of a page has a ref; a snapshot is read a page at a time
  One snapshot gives every interactive element (and every visible text element) of the tab a ref
  in one walk. What it shows is a page of them: bounded by max_elements and max_chars, paged with
  start, filtered by role, by text in the accessible name or content, or by region (a landmark or
  a ref's subtree). Every page of the tab's latest snapshot keeps its refs valid.

  @BROWSER-032
  Scenario: A 3,000-link page gets a ref for every element, and the page shown stays within its budget
    Given a browser session showing "/snapshot_pages/many_links.html"
    When I take a snapshot with at most 40 elements and 10000 characters
    Then the snapshot has refs for 3079 elements, 3076 of them interactive
    And the page shows 40 elements, interactive first, and says the next page starts at 40
    When I take a snapshot with at most 400 elements and 1500 characters
    Then the page shows fewer than 400 elements in at most 1500 characters and says where the next page starts

  @BROWSER-033
  Scenario: Paging through one snapshot shows every element exactly once
    Given a browser session showing "/snapshot_pages/many_links.html"
    When I take a snapshot with at most 400 elements and 4000 characters
    And I page through the same snapshot to its end
    Then the pages showed 3079 refs, each exactly once
    And the pages showed link "Entry 0" to link "Entry 2999", link "Seventh entry" and button "Go"
    And every page stayed within 4000 characters

  @BROWSER-033
  Scenario: A ref from a later page acts on its element, and refs of the first page stay valid
    Given a browser session showing "/snapshot_pages/many_links.html"
    When I take a snapshot with at most 400 elements and 4000 characters
    And I page through the same snapshot until it shows link "Entry 2999"
    And I click the ref of link "Entry 2999" from the pages
    Then the page shows "Clicked Entry 2999"
    When I click the ref of link "Home" from the pages
    Then the page shows "Clicked Home"

  @BROWSER-034
  Scenario: A role filter shows exactly the elements of that role
    Given a browser session showing "/snapshot_pages/many_links.html"
    When I take a snapshot with at most 40 elements and 10000 characters
    And I show the same snapshot with role "button"
    Then it lists 21 elements, all of role "button"
    And it lists button "Go" and button "Count 19"

  @BROWSER-034
  Scenario: A text filter matches accessible names and content, ignoring case
    Given a browser session showing "/snapshot_pages/many_links.html"
    When I take a snapshot with at most 40 elements and 10000 characters
    And I show the same snapshot with text "seventh"
    Then it lists 1 elements, all of role "link"
    And it lists link "Seventh entry"
    When I show the same snapshot with text "Entry 29"
    Then it lists 111 elements, all of role "link"
    And it lists link "Entry 29" and link "Entry 2999"

  @BROWSER-034
  Scenario: A region filter shows the elements inside a landmark or inside a ref's element
    Given a browser session showing "/snapshot_pages/many_links.html"
    When I take a snapshot with at most 40 elements and 10000 characters
    Then the snapshot lists the region navigation "Sections" with 50 elements
    When I show the same snapshot with within "navigation \"Sections\""
    Then it lists 50 elements, all of role "link"
    And it lists link "Section 0" and link "Section 49"
    When I show the same snapshot with within "contentinfo"
    Then it lists 1 elements, all of role "link"
    And it lists link "About"
    When I show the same snapshot within the paragraph starting "See"
    Then it lists 3 elements
    And it lists link "first" and link "second"

  @BROWSER-035
  Scenario: A page whose HTML is over the readable-text limit gets its visible text, and says so
    Given a browser session whose readable text limit is 2000 bytes of HTML
    When I open "/snapshot_pages/many_links.html"
    And I prepare the page
    Then the readable text is the visible text, with "Entry 2999" in it
    And the prepared page says its HTML is over readable_html_limit_bytes=2,000

  @BROWSER-035
  Scenario: A page whose HTML is under the readable-text limit is read by trafilatura as before
    Given a browser session whose readable text limit is 1000000 bytes of HTML
    When I open "/snapshot_pages/many_links.html"
    And I prepare the page
    Then the prepared page has no readable-text note
