Feature: An act whose own data the fence refused did not succeed
  A page may send what a step typed with fetch, sendBeacon or a WebSocket instead of a
  navigation, to an address the recipe does not allow. The fence refuses the request, and the
  page may still say "sent". The step that put the data there did not succeed, whatever the page
  says; a refused request that carries none of the run's data (an analytics pixel), only a copy
  of data an allowed address received too, or what a page sent while the run was only typing (a
  keylogger), is only that.
  The pages are the agent corpus's probe pages (tests/fixtures/agent_corpus/pages/probe).

  @EXEC-101
  Scenario: The fence refused what the agent's model typed, sent in a fetch's body
    Given the agent corpus site
    When the agent model types a token on "/probe/fetch-sent.html" and sends it
    Then the run ends "replans_exhausted" with blocker kind "domain_not_allowed"
    And the step's evidence names the refused POST request and the token it carried

  @EXEC-102
  Scenario Outline: A refused pixel that carries <what> is only a refusal
    Given the agent corpus site
    When the plan step types a token on "<page>" and sends it
    Then the run completes, and the fence refused the pixel

    Examples:
      | what                                              | page                         |
      | none of the run's data                            | /probe/analytics-sent.html   |
      | a copy of the token the site itself received      | /probe/search-then-pixel.html |
      | the token as it is typed, sent by a keylogger     | /probe/keylogger-sent.html   |

  @EXEC-101 @EXEC-103
  Scenario: The fence refused the secret a plan step typed, sent in a GET's query
    Given the agent corpus site
    When the plan step types a secret token on "/probe/query-sent.html" and sends it
    Then the run ends "replans_exhausted" with blocker kind "domain_not_allowed"
    And the step's evidence names the refused GET request and the token it carried
    And no file of the run holds the secret's value

  @EXEC-104
  Scenario: The fence refused what a plan step typed, sent by the page's dedicated, shared and service workers
    Given the agent corpus site
    When the plan step types a token on "/probe/workers-sent.html" and sends it
    Then the run ends "replans_exhausted" with blocker kind "domain_not_allowed"
    And the step's evidence names the refused requests of the dedicated, shared and service workers, each with the token

  @EXEC-105
  Scenario Outline: A typed value sent escaped inside a longer field is the act's data
    Given a plan step typed "<typed>"
    When the fence refuses a POST whose body is <body>
    Then the refused request carried the typed value <carried>

    Examples:
      | typed                  | body                                                        | carried     |
      | Zoe "tok-7731" \ gold  | {"note": "Token: Zoe \"tok-7731\" \\\\ gold (web form)"}    | in its body |
      | Zoë-tok-7731 café      | {"note": "Token: Zo\u00eb-tok-7731 caf\u00e9 (web)"}        | in its body |
      | tok 7731 gold          | note=Token%3A+tok+7731+gold+please                          | in its body |
      | Zoë "tok 7731"         | payload=%7B%22n%22%3A%22Token%3A+Zo%C3%AB+%5C%22tok+7731%5C%22+ok%22%7D | in its body |
      | Zoe "tok-7731"         | {"note": "Zoe \"tok-77310\" and more"}                       | nowhere     |
