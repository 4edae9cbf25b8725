Feature: Login pages that are the goal
  A login page is a blocker only when the run has no way to log in. The run knows it means to log
  in from its plan, judged once: a step that types into a password field, or an agent step told
  (by its task or the recipe's goal) to log in. MiniWoB++ login-user is served on loopback and the
  task's own reward is the ground truth; the Gemini model is the scripted loopback server.

  @LOGIN-001
  Scenario Outline: The plan says whether and how the run logs in
    Given the recipe "<recipe>" compiled
    When its plan is judged for a way to log in
    Then the way to log in is the step "<step>"

    Examples:
      | recipe                               | step     |
      | recipes/miniwob/login-user           | password |
      | recipes/miniwob/agent/login-user     | login    |
      | recipes/miniwob/enter-password       | password |
      | login-no-means                       | none     |
      | agent-fill                           | none     |
      | demo-quote                           | none     |

  @LOGIN-002
  Scenario: The deterministic login-user recipe logs in on the login page
    Given the MiniWoB++ pages on loopback
    When I run "recipes/miniwob/login-user" on login-user with seed 3
    Then the run ends "completed" with stop reason "completed"
    And the task awarded a reward above 0
    And the login page was validated because step "password" logs in

  @LOGIN-003
  Scenario: An agent told to log in with these credentials logs in
    Given the MiniWoB++ pages on loopback
    And a Gemini server on loopback and an API key in the environment
    And the model will log in with the credentials the page shows
    When I run "recipes/miniwob/agent/login-user" on login-user with seed 5
    Then the run ends "completed" with stop reason "completed"
    And the task awarded a reward above 0
    And the login page was validated because step "login" logs in

  @LOGIN-003
  Scenario: An agent that types a wrong password fails honestly
    Given the MiniWoB++ pages on loopback
    And a Gemini server on loopback and an API key in the environment
    And the model will log in with the page's username and a wrong password
    When I run "recipes/miniwob/agent/login-user" on login-user with seed 5
    Then the run ends "error" with stop reason "verification_failed"
    And the task awarded a reward of -1

  @LOGIN-004
  Scenario: A login page is login_required when the run has no way to log in
    Given the MiniWoB++ pages on loopback
    When I run "login-no-means" on login-user with seed 2
    Then the run ends "error" with stop reason "replans_exhausted"
    And the verdict names blocker "login_required"
    And the blocked page's evidence names no step that logs in
