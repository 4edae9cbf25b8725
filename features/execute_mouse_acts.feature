Feature: Acts made with the mouse and what the page shows at them: drag, text selection, the press, hover
  A drag is made with the mouse as a hand makes it (press, moves with the button held, release on
  the destination) and, like every act, counts only by an effect of its own.

  @EXEC-066
  Scenario: A drag with the mouse lands where the recipe says, proven by its own effect
    When I run "language3/drag" against the fixture site
    Then the acts "drag-knob" were each verified
    And the drag "drag-knob" went from "#knob" to "#bin" in moves of at most 5 px, the page saying "dropped on bin after several moves, button held"

  @EXEC-066
  Scenario: A drag the page does nothing with is not verified
    When I run "language3/drag-nothing" against the fixture site
    Then the run ends "error" with stop reason "verification_failed"
    And the act "drag-inert" was unverified saying "no change the act caused anywhere in the document"

  @EXEC-067
  Scenario: Text is selected with the mouse and verified by the page's selection
    When I run "language3/select-text" against the fixture site
    Then the acts "select-part, select-all" were each verified
    And the act "select-part" was verified saying "the selection holds 'quick brown'"
    And the act "select-all" was verified saying "the selection holds 'The quick brown fox jumps over the brown dog'"

  @EXEC-067
  Scenario: Text the element does not show is not selected
    When I run "language3/select-missing-text" against the fixture site
    Then the run ends "error" with stop reason "execute_error"
    And the act "select-cat" failed with "not_found" saying "does not show the text 'lazy cat'"

  @EXEC-068
  Scenario: What the page showed at the press is judged, not a reading taken before it
    When I run "language3/buy-late" against the fixture site
    Then the run ends "error" with stop reason "verification_failed"
    And the act "buy" read "$99.00" at its "mouseup", where the step before read 10

  @EXEC-068
  Scenario: A value unchanged at the press lets the run complete
    When I run "language3/buy-steady" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the act "buy" read "$10.00" at its "mouseup", where the step before read 10

  @RECIPE-027
  Scenario: Quoted text in an expression keeps its backslashes as written, folded or not
    When I run "language3/folded" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the variable "after_quick" is "brown" and "written" holds a backslash, "apples", a backslash and "t"

  @EXEC-069
  Scenario: A label locator reads labels as Playwright's label locator reads them, hidden parts included
    When I run "language3/labels" against the fixture site
    Then the acts "quantity, copies" were each verified

  @EXEC-070
  Scenario: A hover that opens a CSS-only menu is verified by what became visible
    When I run "language3/css-hover" against the fixture site
    Then the act "open-menu" was verified saying "shown by the hover (CSS, no node changed): ul ("Gold bars Silver coins")"

  @EXEC-070
  Scenario: A hover that shows nothing is not verified
    When I run "language3/plain-hover" against the fixture site
    Then the run ends "error" with stop reason "verification_failed"
    And the act "hover-plain" was unverified saying "no change the act caused anywhere in the document"
