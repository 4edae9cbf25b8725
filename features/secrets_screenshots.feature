Feature: Screenshots cover the secrets a page shows
  A page that shows a secret in plain text (a token typed into a text field and echoed back)
  is captured with those places covered; without the session knowing the value they are not.
  Verity takes away only the cover it drew: an element the page marks like a cover is the page's.

  @SECRET-006 @BROWSER-074
  Scenario: The field and the echo showing the token are black in the screenshot, and only while it is taken
    Given a browser session showing "/secrets.html" with the token typed into the plain token field
    When the session knows the token as a secret and takes a screenshot
    Then every pixel inside the token field and inside the echoed token is black
    And the page has no cover left over, and its own element marked like a cover is still there
    And a screenshot by a session that does not know the token shows non-black pixels inside the token field
