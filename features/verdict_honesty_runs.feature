Feature: Every honesty corpus case ends as its label says when it really runs
  Each labelled case of tests/fixtures/honesty is run end to end: its recipe, in Chromium, against
  the corpus site on loopback. The verdict must be the label's: no false success, no false failure
  on a benign page, the exact stop reason and blocker kind, and for completed cases the labelled
  values, read from the document the label names.

  @VERDICT-007
  Scenario: The whole corpus runs with no false success, no false failure and exact kinds
    Given the honesty corpus
    When every case runs in Chromium against the corpus site
    Then the totals are printed
    And no case ends completed against its label
    And no benign case fails
    And every case ends with its labelled stop reason, blocker kind, evidence and values

  @BROWSER-038
  Scenario: A page that tells its own scripts another title, text or markup than it shows cannot make a run pass
    Given the honesty corpus's "cloak-" cases
    When every case runs in Chromium against the corpus site
    Then no case ends completed against its label
    And every case ends with its labelled stop reason, blocker kind, evidence and values

  @BROWSER-039
  Scenario: A verify passes on a text or an element a person can see, not on one drawn invisibly
    Given the honesty corpus's "unseen-" cases
    When every case runs in Chromium against the corpus site
    Then no case ends completed against its label
    And every case ends with its labelled stop reason, blocker kind, evidence and values

  @BROWSER-039
  Scenario: Text below the fold or further down a scrolling box is text the page shows
    Given the honesty corpus's "seen-" cases
    When every case runs in Chromium against the corpus site
    Then no benign case fails
    And every case ends with its labelled stop reason, blocker kind, evidence and values

  @EXEC-074
  Scenario: A keyword a page hides does not make it the target
    Given the honesty corpus's "unseen-keywords-" cases
    When every case runs in Chromium against the corpus site
    Then no case ends completed against its label
    And every case ends with its labelled stop reason, blocker kind, evidence and values

  @BROWSER-073
  Scenario: A wall or a quote a page draws in an open shadow root is judged as the page it is
    Given the honesty corpus's "shadow-" cases
    When every case runs in Chromium against the corpus site
    Then no case ends completed against its label
    And no benign case fails
    And every case ends with its labelled stop reason, blocker kind, evidence and values

  @BROWSER-078
  Scenario: A wall or a quote a page draws in a closed shadow root is judged as the page it shows
    Given the honesty corpus's "closed-shadow-" cases
    When every case runs in Chromium against the corpus site
    Then no case ends completed against its label
    And no benign case fails
    And every case ends with its labelled stop reason, blocker kind, evidence and values

  @VERDICT-032
  Scenario: A value read inside a srcdoc frame is judged by the frame's content and its embedder's origin
    Given the honesty corpus's "srcdoc-" cases
    When every case runs in Chromium against the corpus site
    Then no case ends completed against its label
    And no benign case fails
    And every case ends with its labelled stop reason, blocker kind, evidence and values

  @VERDICT-033 @VERDICT-034
  Scenario: An evaluate step's script and an act's read at the press read only a page that would pass validation now
    Given the honesty corpus's "late-read-" cases
    When every case runs in Chromium against the corpus site
    Then no case ends completed against its label
    And every case ends with its labelled stop reason, blocker kind, evidence and values

  @BROWSER-079
  Scenario: A value read inside a data: frame is judged by the frame's content, as a srcdoc frame's is
    Given the honesty corpus's "data-frame-" cases
    When every case runs in Chromium against the corpus site
    Then no case ends completed against its label
    And no benign case fails
    And every case ends with its labelled stop reason, blocker kind, evidence and values

  @BROWSER-080
  Scenario: A frame's closed shadow roots are judged as the top document's, and a wait sees text a late closed root shows
    Given the honesty corpus's "closed-root-" cases
    When every case runs in Chromium against the corpus site
    Then no case ends completed against its label
    And no benign case fails
    And every case ends with its labelled stop reason, blocker kind, evidence and values

  @VERDICT-041
  Scenario: A value under a layer that is a wall is not kept, and a bar, a header or a corner box over the page is no wall
    Given the honesty corpus's "covered-" cases
    When every case runs in Chromium against the corpus site
    Then no case ends completed against its label
    And no benign case fails
    And every case ends with its labelled stop reason, blocker kind, evidence and values

  @VERDICT-042
  Scenario: A wall drawn absolute or sticky, one the pointer passes through and one in a frame over the page are walls, and a popup with a way past it is none
    Given the honesty corpus's "walls-" cases
    When every case runs in Chromium against the corpus site
    Then no case ends completed against its label
    And no benign case fails
    And every case ends with its labelled stop reason, blocker kind, evidence and values
