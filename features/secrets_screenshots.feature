Feature: Screenshots cover the secrets a page shows
  A page that shows a secret in plain text (a token typed into a text field and echoed back)
  is captured with those places covered; without the session knowing the value they are not.

  @SECRET-006 @REPORT-008
  Scenario: The field and the echo showing the token are black in the screenshot and its thumbnail, and only while they are taken
    Given a browser session showing "/secrets.html" with the token typed into the plain token field
    When the session knows the token as a secret and takes a screenshot
    Then every pixel inside the token field and inside the echoed token is black
    And the page has no cover left over
    And a screenshot by a session that does not know the token shows non-black pixels inside the token field
    When the session knows the token as a secret and prepares the page
    Then the thumbnail Chromium took with the page's screenshot is dark inside the token field and the echoed token
    And the page has no cover left over
    And the thumbnail of the page prepared by a session that does not know the token is light inside the token field
