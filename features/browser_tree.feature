Feature: The page as an accessibility tree a model reads
  snapshot_tree writes the tab's page as nested YAML lines, `- role "name" [state] [ref=…]: value`,
  the shape of Playwright's ariaSnapshot in its "ai" mode, from the same roles and names locators
  use. Every element line has a ref an act resolves; iframes are stitched in with refs qualified by
  their frame; hidden content is not in it. Its size is the model's to control: a depth, the part
  under a ref, a search, and long runs of same-shaped siblings collapsed into a line saying how to
  see them.

  @BROWSER-061
  Scenario: The tree shows roles, names, states and values, and a ref of it acts on its element
    Given a browser session showing "/tree/shapes.html"
    When I take a tree snapshot
    Then the tree holds these lines, refs aside:
      """
      - navigation "Site":
        - link "Home"
      - heading "Order form" [level=1]
      - paragraph: Fill in the form and send it.
      - form "Order":
        - textbox "Name": Ada
        - checkbox "Gift wrap" [checked]
        - checkbox "Express"
        - combobox "Size":
          - option "Large" [selected]
        - button "Send order"
        - button "Cancel" [disabled]
        - generic "More options" [expanded]
      """
    And every element line of the tree has a ref of the tree's snapshot
    When I click the ref of the tree line 'button "Send order"'
    Then the page shows "Sent by Send order"
    When I take a tree snapshot
    And I click the ref of the older tree's line 'button "Send order"'
    Then the action fails with "stale_ref"

  @BROWSER-062
  Scenario: An iframe's document is stitched in under its line, with refs of its frame that act there
    Given a browser session showing "/tree/framed.html"
    When I take a tree snapshot
    Then the tree holds these lines, refs aside:
      """
      - heading "Outer page" [level=1]
      - iframe "Inner":
        - heading "Inner page" [level=2]
        - button "Inner button"
      - paragraph: After the frame.
      """
    And the ref of the tree line 'button "Inner button"' names the tab's second frame
    When I click the ref of the tree line 'button "Inner button"'
    Then a search of the tree for "inner clicked" finds a paragraph inside iframe "Inner"

  @BROWSER-063
  Scenario: Hidden content reaches neither the tree nor a search of it
    Given a browser session showing "/tree/shapes.html"
    When I take a tree snapshot
    Then the tree holds none of "Hidden by display none", "Hidden by visibility", "Hidden by aria", "Assistant instructions", "Transparent decoy", "Zero size decoy", "Clipped decoy"
    When I search the tree for "/hidden|decoy|instructions/i"
    Then the search finds nothing

  @BROWSER-064
  Scenario: A depth cuts the tree into stubs that count what they hold; the part under a stub's ref shows it
    Given a browser session showing "/tree/deep.html"
    When I take a tree snapshot of depth 2
    Then the tree holds these lines, refs aside:
      """
      - main:
        - heading "Catalogue" [level=1]
        - list "Sections": … (3 link, 1 button)
      """
    When I show the tree under the ref of its line 'list "Sections"'
    Then the tree holds these lines, refs aside:
      """
      - list "Sections":
        - listitem:
          - text: Fruit
          - list "Fruit":
            - listitem:
              - link "Apple"
      """
    When I click the ref of the tree line 'button "Buy saw"'
    Then the action succeeds
    And the first tree's ref of 'heading "Catalogue"' still resolves

  @BROWSER-065
  Scenario: A long run of same-shaped rows is collapsed into a line that says how to see the rest; form fields never are
    Given a browser session showing "/tree/table.html"
    When I take a tree snapshot
    Then the tree shows rows "Order 1" to "Order 3" and then the line "… 497 more row (497 button)" naming how to see them
    And the tree shows all 8 textboxes "Filter 1" to "Filter 8"
    When I follow the collapsed line's instruction
    Then the tree shows the row "Order 4" first
    When I click the ref of the tree line 'button "Open 4"'
    Then the page shows "Opened order 4"
    When I take a tree snapshot within 1500 characters
    Then the tree is at most 1500 characters long and says what it left out

  @BROWSER-066
  Scenario: A search of the tree lists the matching nodes with their paths, and its refs act
    Given a browser session showing "/tree/table.html"
    When I search the tree for "open 250"
    Then the search finds 2 nodes, the last a path ending in 'button "Open 250"' that starts at 'main'
    When I click the ref the search found
    Then the page shows "Opened order 250"
    When I search the tree for "/^Order 4\d\d$/" listing at most 5
    Then the search lists 5 nodes and says 95 more match
