Feature: The recipe language a newcomer reaches for: expressions, waits for what goes away, keys, hover and dates
  Small computations need no page script; a wait can wait for something to go away or for any
  condition; text can arrive as key presses; a menu can be hovered; a date or time lands as a
  person writes it; and a skipped step says why in the recipe's own words.

  @EXEC-053
  Scenario: Expressions compute values, decide conditions and fill patterns without JavaScript
    When I run "language2/everything" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the close summary says "sum 12, HELLO, price 63.00 doubled"
    And the variable "sum" is 12 and "cheap" is true
    And the state "never.when" was skipped saying "{expression: number(steps.nums.price) > 100} does not hold: number(steps.nums.price) > 100 is false (steps.nums.price='$31.50')"

  @EXEC-054
  Scenario: Waits for a text that goes, an element that is removed and a condition that comes to hold
    When I run "language2/everything" against the fixture site
    Then the states "loading-gone, spinner-gone, counted" were each met
    And the wait "counted" held on "{text_includes: count 5}" after polling

  @EXEC-054
  Scenario: A condition the page never meets ends the wait with timeout
    When I run "language2/until-never" against the fixture site
    Then the run ends "error" with stop reason "timeout"
    And the state "forever" timed out after its 800 ms saying "wait until {not: {text_includes: Language two}} timed out"

  @VERDICT-019
  Scenario: A page that cannot be read is never taken for one whose text went away
    When I run "language2/gone-frozen" against the fixture site
    Then the run ends "error" with stop reason "timeout"
    And the state "gone" timed out after its 6000 ms saying "could not judge"

  @EXEC-055
  Scenario: Keys, a templated press, hover and person-written dates and times land
    When I run "language2/everything" against the fixture site
    Then the acts "keyed, escape, hover-menu, menu-item, time, date, datetime" were each verified

  @RECIPE-026
  Scenario: A bad expression is a validation problem at its field path
    Given the recipe "language2/bad-expressions"
    When I validate it
    Then the problems are "plan[1].set.total: bad_expression, plan[2].when.expression: bad_expression, plan[3].set.x: bad_expression, plan[4].set.y: unknown_variable"
    And expressions whose cost would be unbounded are refused when evaluated
