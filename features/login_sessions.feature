Feature: Sessions that persist between runs
  A recipe's `session.save_storage_state` writes the cookies and localStorage of a completed run
  (Playwright's storageState JSON, owner-only); `session.storage_state` loads them before the next
  run. The domain policy applies to every cookie and origin, and the files are secrets: only their
  path and counts reach events and run files. The members site is served on loopback.

  Background:
    Given the members site on loopback
    And copies of the recipes login-save and login-reuse in a fresh directory

  @LOGIN-005
  Scenario: Log in once, reuse the session, and without it hit the login page
    When I run the copied "login-save" with the right password
    Then the run ends "completed" with stop reason "completed"
    And the saved session file is owner-only and holds the site's session cookie and device token
    When I run the copied "login-reuse"
    Then the run ends "completed" with stop reason "completed"
    And the run typed nothing and read the member name "Ada Lovelace"
    And the run's evidence says 1 cookie and 1 origin were loaded from the session file
    When I run "login-members-no-session" on the members site
    Then the run ends "error" with stop reason "replans_exhausted"
    And the verdict names blocker "login_required"

  @LOGIN-006
  Scenario: The session file's contents appear in nothing the runs wrote
    When I run the copied "login-save" with the right password
    And I run the copied "login-reuse"
    Then no run file, event or report of either run holds the session cookie or the device token

  @LOGIN-007
  Scenario: Cookies and origins outside allowed_domains are neither loaded nor saved
    Given a session file with the site's cookie and device token, and a cookie and an origin of "tracker.example"
    When I run the copied "login-reuse"
    Then the run ends "completed" with stop reason "completed"
    And the run's evidence says 1 cookie and 1 origin were loaded and 1 cookie and 1 origin left out

  @LOGIN-008
  Scenario Outline: A session file that cannot be used stops the run before the browser starts
    Given the session file holds <content>
    When I run the copied "login-reuse"
    Then the run ends "error" with stop reason "invalid_input"
    And the verdict names "session.storage_state", the file and "<problem>"
    And no browser session was opened

    Examples:
      | content                        | problem                 |
      | nothing: it is missing         | no such file            |
      | broken JSON                    | not JSON                |
      | a cookie without a value       | cookies[0].value        |
      | an origin that is a number     | origins[0].origin       |

  @LOGIN-009
  Scenario: A run that does not complete keeps the old session file
    Given a session file with the site's cookie and device token, and a cookie and an origin of "tracker.example"
    When I run the copied "login-save" with a wrong password
    Then the run ends "error" with stop reason "verification_failed"
    And the session file is unchanged and the verdict says it was not saved

  @LOGIN-010
  Scenario: A recipe sent to the server may not name session files
    When the server's recipe catalog is sent the copied "login-reuse" as text
    Then it is refused as INVALID_ARGUMENT at "session.storage_state" naming its line

  @LOGIN-007
  Scenario Outline: Which cookie domains allowed_domains admits
    When a cookie for "<domain>" is judged against allowed domains "<allowed>"
    Then the cookie is <verdict>

    Examples:
      | domain             | allowed                      | verdict  |
      | 127.0.0.1          | 127.0.0.1, localhost         | loaded   |
      | 127.0.0.1          | 127.0.0.1:8080               | loaded   |
      | .example.com       | *.example.com                | loaded   |
      | shop.example.com   | *.example.com                | loaded   |
      | example.com        | example.com                  | loaded   |
      | .tracker.example   | example.com, *.example.com   | left out |
      | example.com.evil   | example.com                  | left out |
      | 10.0.0.1           | 127.0.0.1                    | left out |
