Feature: A verified agent run freezes into a plain recipe that runs without a model
  `verity recipe freeze RUN_DIR` writes the path a verified run took as a recipe a person can read,
  review and commit: each agent step becomes the steps its model took, with the locators that
  resolved, followed by its done_when as a verify step; a typed secret is its input's placeholder.

  @REPAIR-007
  Scenario: An agent's sign-in freezes into acts that sign in again with no model call
    Given a Gemini server on loopback and an API key in the environment
    And the model will type "Ada {x}" into the member name by its ref, the password secret by its label, click Sign in by its ref and close
    When I run "agent-sign-in" with the password "2468" against the fixture site
    And I freeze the run into a recipe
    Then the frozen recipe validates and names each element by the role and name its ref resolved to
    And the frozen recipe holds the password only as its placeholder
    And the frozen recipe, run again with the password "2468", completes without asking the model

  @REPAIR-007
  Scenario: A run that did not verify is not frozen
    Given a Gemini server on loopback and an API key in the environment
    And the model will type "Ada {x}" into the member name by its ref, the password secret by its label, click Sign in by its ref and close
    When I run "agent-sign-in" with the password "1111" against the fixture site
    And I freeze the run into a recipe
    Then freezing is refused because the run did not complete verified
