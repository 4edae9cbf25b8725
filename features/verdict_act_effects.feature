Feature: An act is verified by what it did, judged on the whole document against a baseline
  After an act with no `expect`, the run asks whether the act had an effect of its own. A type is
  proven only by the field holding the typed text (in the form the control keeps it), a select by
  the option being selected, a click on a checkbox by its checked state, any other act by a change
  anywhere in the document after a short settle. What changed by itself in a baseline window before
  the act (a clock, a counter) is not the act's effect, and focus alone never proves a type.

  @VERDICT-010
  Scenario: A click on a page with no landmark and no form is verified by the message it wrote
    Given the act-effects page "saved.html"
    When a run clicks {"role": "button", "name": "Save"} with no expectation
    Then the run ends "completed"
    And the act's evidence says "saved alice"

  @VERDICT-011
  Scenario: A clock ticking beside an inert button is not the click's effect
    Given the act-effects page "clock-button.html"
    When a run clicks {"css": "#inert"} with no expectation
    Then the run ends "verification_failed"
    And the act's evidence says "ignored the page's own changes seen before the act: span#clock"

  @VERDICT-012
  Scenario Outline: A type is verified only by the field holding the typed text
    Given the act-effects page "fields.html"
    When a run types "<text>" into {"css": "<field>"} with no expectation
    Then the run ends "<outcome>"
    And the act's evidence says "<evidence>"
    And the act's evidence does not say "focus"

    Examples:
      | field   | text        | outcome             | evidence                                                      |
      | #plain  | gold        | completed           | the field holds the typed 'gold'                              |
      | #notes  | hello there | completed           | the editable element's text holds the typed 'hello there'     |
      | #phone  | 5551234567  | verification_failed | the field holds '(555) 123-4567', not the typed '5551234567'  |
      | #code   | ABCDE       | verification_failed | the field holds 'ABC', not the typed 'ABCDE'                  |
      | #locked | gold        | verification_failed | the field holds '', not the typed 'gold'                      |

  @VERDICT-013
  Scenario Outline: Time, date and number fields are compared in the form they keep
    Given the act-effects page "fields.html"
    When a run types "<text>" into {"css": "<field>"} with no expectation
    Then the run ends "<outcome>"
    And the act's evidence says "<evidence>"

    Examples:
      | field   | text     | outcome             | evidence                                                                                     |
      | #time   | 0609A    | completed           | the time field holds '06:09', its form (a time as HH:MM) of the typed '0609A'                |
      | #time   | 0745P    | completed           | the time field holds '19:45', its form (a time as HH:MM) of the typed '0745P'                |
      | #time   | hello    | verification_failed | the time field holds ''; the typed 'hello' is no time it keeps                               |
      | #date   | 03152024 | completed           | the date field holds '2024-03-15', its form (a date as YYYY-MM-DD) of the typed '03152024'  |
      | #amount | 12.50    | completed           | the number field holds the number typed as '12.50'                                           |
      | #amount | abc      | verification_failed | the number field does not hold the number typed as 'abc': it holds ''                        |

  @VERDICT-014
  Scenario Outline: A select is verified by the option selected, a checkbox click by its checked state
    Given the act-effects page "fields.html"
    When a run <does> with no expectation
    Then the run ends "<outcome>"
    And the act's evidence says "<evidence>"

    Examples:
      | does                                 | outcome             | evidence                                       |
      | selects "g" in {"css": "#colour"}    | completed           | the option 'g' is selected                     |
      | selects "Large" in {"css": "#size"}  | verification_failed | the option 'l' is not selected                 |
      | clicks {"css": "#agree"}             | completed           | the checkbox's checked state False -> True     |
      | clicks {"css": "#stuck"}             | verification_failed | the checkbox's checked state False -> False (unchanged) |

  @VERDICT-015
  Scenario: The evidence of a password field says its value changed, never the value
    Given the act-effects page "fields.html"
    When a run types "hunter22x" into {"css": "#password"} with no expectation
    Then the run ends "completed"
    And the act's evidence says "the password field's value changed and holds the text typed"
    And the act's evidence and result do not say "hunter22x"

  @VERDICT-016
  Scenario: MiniWoB++ enter-time: the time as the instruction writes it fails honestly unless the field keeps it; the control's form completes
    Given the MiniWoB++ pages on loopback
    When I run the act-effects recipe "enter-time-as-written" for "enter-time" with seed 1
    Then the verdict agrees with the task's reward
    And a run that did not complete names the value the time field holds
    When I run the act-effects recipe "enter-time-keyed" for "enter-time" with seed 1
    Then the run completed with raw reward 1
