Feature: The intent guard keeps browser tasks in the browser
  A goal that asks for the browser must be done with browser tools. The guard checks before the
  run, before each tool and before completion, and stops with a reason a person can act on.

  @GUARD-001
  Scenario: A browser task with a browser tool runs and completes
    Given a recipe whose goal is "Open example.org in the browser and read the price"
    And the available tools are "open_url, browser_snapshot, webfetch"
    When the guard detects the intent
    Then the intent is "browser_access"
    And preflight is allowed
    And the tool "open_url" is allowed
    When the tool "open_url" succeeds
    Then completion is allowed

  @GUARD-002
  Scenario: A browser task without any browser tool fails before it starts
    Given a recipe whose goal is "请用浏览器打开 example.org 并读取价格"
    And the available tools are "webfetch, read_file"
    When the guard detects the intent
    Then preflight stops the run with "intent_execution_failed"
    And the guard's detail mentions "webfetch, read_file"
    And the guard's detail mentions "noFallback"

  @GUARD-003
  Scenario: Repeated network-adjacent calls are blocked after softBlockAfter
    Given a recipe whose goal is "Use the browser to check the status page"
    And the guard setting softBlockAfter is 2
    When the guard detects the intent
    Then the tool "webfetch" is allowed
    And the tool "webfetch" is allowed
    And the tool "webfetch" stops the run with "tool_policy_blocked"
    And the guard's detail mentions "softBlockAfter"

  @GUARD-004
  Scenario: An out-of-scope tool is blocked on a browser task
    Given a recipe whose goal is "Use the browser to check the status page"
    When the guard detects the intent
    Then the tool "write_file" stops the run with "tool_policy_blocked"
    And the tool "browser_click" is allowed

  @GUARD-005
  Scenario: A browser task that only succeeded with non-browser tools fails at completion
    Given a recipe whose goal is "Open in browser the pricing page and report the plans"
    And the available tools are "open_url, webfetch"
    When the guard detects the intent
    Then preflight is allowed
    And the tool "webfetch" is allowed
    When the tool "webfetch" succeeds
    And the tool "open_url" fails
    Then completion stops the run with "intent_execution_failed"
    And the guard's detail mentions "no browser tool call succeeded"

  @GUARD-005
  Scenario: The runtime's own steps never count as browser work
    Given a recipe whose goal is "Open in browser the pricing page and report the plans"
    When the guard detects the intent
    Then the tool "data.validate-target" is allowed
    And the tool "close" is allowed
    When the tool "data.validate-target" succeeds
    And the tool "agent.evaluate" succeeds
    And the tool "close" succeeds
    Then completion stops the run with "intent_execution_failed"

  @GUARD-006
  Scenario Outline: Browser keywords and patterns are recognised in any language and letter case
    Given a recipe whose goal is "<goal>"
    And the recipe's intent patterns are "<patterns>"
    When the guard detects the intent
    Then the intent is "<label>"

    Examples:
      | goal                                       | patterns              | label          |
      | 请用浏览器访问 example.org                  |                       | browser_access |
      | 浏览器访问 我的订单页面                      |                       | browser_access |
      | OPEN IN BROWSER the docs and find the limit |                       | browser_access |
      | go to the site and screenshot the banner   | screenshot\s+the      | browser_access |
      | summarise these meeting notes              |                       | general        |

  @GUARD-007
  Scenario: A general task has no browser-first limits
    Given a recipe whose goal is "Summarise the attached meeting notes"
    And the available tools are "read_file"
    When the guard detects the intent
    Then the intent is "general"
    And preflight is allowed
    And the tool "write_file" is allowed
    And completion is allowed

  @GUARD-007
  Scenario: A disabled guard allows everything on a browser task
    Given a recipe whose goal is "Use the browser to check the status page"
    And the intent guard is disabled
    And the available tools are "read_file"
    When the guard detects the intent
    Then preflight is allowed
    And the tool "write_file" is allowed
    And completion is allowed

  @GUARD-008
  Scenario: The model detector labels a goal the keywords miss
    Given a recipe whose goal is "Find the cheapest flight on the airline's site" with the model detector
    And Gemini answers '{"label": "browser_access", "confidence": 0.82, "reason": "needs the airline website"}'
    When the guard detects the intent with the Gemini model
    Then the intent is "browser_access" from the "model" detector
    And the intent's reason is "needs the airline website"
    And Gemini was asked once with the goal

  @GUARD-009
  Scenario: An unparsable model answer falls back to the heuristic
    Given a recipe whose goal is "Find the cheapest flight on the airline's site" with the model detector
    And Gemini answers 'I think this is probably a browser thing?'
    When the guard detects the intent with the Gemini model
    Then the intent is "general" from the "heuristic (model fallback)" detector
    And the intent's reason mentions "not a usable JSON label"

  @GUARD-009
  Scenario: A failing model falls back to the heuristic
    Given a recipe whose goal is "Find the cheapest flight on the airline's site" with the model detector
    And Gemini fails with HTTP 503
    When the guard detects the intent with the Gemini model
    Then the intent is "general" from the "heuristic (model fallback)" detector
    And the intent's reason mentions "server_error"
