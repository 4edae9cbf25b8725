Feature: MiniWoB++ tasks with deterministic recipes, judged by the task's own reward
  Each task page is served on loopback with an instrumentation script that seeds the task and
  reports the reward the task itself awards; the recipe never sees it. The verdict must agree:
  completed exactly when the reward is above 0.

  @EXEC-034
  Scenario Outline: The verdict agrees with the task's reward
    Given the MiniWoB++ pages on loopback
    When I run the recipe for "<task>" with seed <seed>
    Then a completed run ended the task's episode
    And the verdict agrees with the reward

    Examples:
      | task                  | seed |
      | click-button-sequence | 1    |
      | click-option          | 2    |
      | click-dialog-2        | 3    |
      | enter-password        | 4    |
      | focus-text-2          | 5    |
      | click-link            | 6    |
      | email-inbox           | 7    |
      | book-flight           | 8    |
      | navigate-tree         | 9    |
      | form-sequence-2       | 10   |
      | click-collapsible-2   | 11   |
      | social-media          | 12   |
      | enter-date            | 13   |
      | use-spinner           | 14   |
      | guess-number          | 15   |
      | multi-layouts         | 16   |
      | simple-arithmetic     | 17   |
      | click-menu            | 18   |
      | use-slider            | 19   |
      | terminal              | 20   |
      | stock-market          | 21   |
      | daily-calendar        | 22   |
      | text-editor           | 23   |
