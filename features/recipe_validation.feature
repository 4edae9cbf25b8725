Feature: Recipe validation with precise errors
  People write recipes by hand in an editor. Every mistake is reported at once, at the place
  where it was made, in words that say what to do.

  @RECIPE-001
  Scenario Outline: A broken recipe reports exactly its problems at their positions
    Given the broken recipe "<file>"
    When I validate it
    Then the problems are exactly those listed in its expect comments

    Examples:
      | file                   |
      | yaml-syntax.yaml       |
      | duplicate-keys.yaml    |
      | wrong-types.yaml       |
      | steps.yaml             |
      | placeholders.yaml      |
      | tools-and-output.yaml  |
      | agent-steps.yaml       |
      | agent-unverifiable.yaml |

  @RECIPE-002
  Scenario: A recipe that tries to construct Python objects is rejected, not executed
    Given the broken recipe "unsafe-tag.yaml"
    When I validate it
    Then the problems are exactly those listed in its expect comments
    And no object was constructed from the tagged values

  @RECIPE-003
  Scenario: A misspelt key gets a did-you-mean
    Given the broken recipe "unknown-keys.yaml"
    When I validate it
    Then the problems are exactly those listed in its expect comments
    And the problem at "guards.intentGuard.softBlockAfer" suggests "softBlockAfter"

  @RECIPE-004
  Scenario: Guard limits out of range are rejected with the allowed range
    Given the broken recipe "limits.yaml"
    When I validate it
    Then the problems are exactly those listed in its expect comments
    And the problem at "guards.max_replans" says "less than or equal to 20"

  @RECIPE-005
  Scenario: Domain patterns are checked and wildcards cover subdomains only
    Given the broken recipe "bad-patterns.yaml"
    When I validate it
    Then the problems are exactly those listed in its expect comments
    And the allowed domains "*.example.com" allow "https://a.b.example.com/x" but not "https://example.com/"

  @RECIPE-006
  Scenario: Placeholders must name declared inputs
    Given the broken recipe "placeholders.yaml"
    When I validate it
    Then the problem at "goal" suggests "metal"

  @RECIPE-006
  Scenario: Built-ins cannot refer to themselves, and every templated field is checked
    Given the broken recipe "placeholder-cycles.yaml"
    When I validate it
    Then the problems are exactly those listed in its expect comments
    And the problem at "goal" says "it would refer to itself"
    And the problem at "plan[1].act.expect.element.value" suggests "metal"

  @RECIPE-007
  Scenario: Steps no flow can reach are reported
    Given the broken recipe "unreachable.yaml"
    When I validate it
    Then the problems are exactly those listed in its expect comments

  @RECIPE-011
  Scenario Outline: Oversized recipes are refused before processing
    Given the broken recipe "<file>"
    When I validate it
    Then the problems are exactly those listed in its expect comments

    Examples:
      | file             |
      | oversized.yaml   |
      | alias-bomb.yaml  |
  @RECIPE-013
  Scenario Outline: Text no recipe can hold is reported at its place, in our words
    Given the broken recipe "<file>"
    When I validate it
    Then the problems are exactly those listed in its expect comments
    And no problem quotes the YAML library's own wording

    Examples:
      | file                 |
      | bad-characters.yaml  |
      | escaped-values.yaml  |
      | big-numbers.yaml     |
      | deep-nesting.yaml    |
      | deep-aliases.yaml    |
      | reused-anchors.yaml  |
      | not-utf8.yaml        |

  @RECIPE-014
  Scenario: What a run could only fail on at its end is refused by validation
    Given the broken recipe "run-time-failures.yaml"
    When I validate it
    Then the problems are exactly those listed in its expect comments
    And the problem at "output.schema.properties.price.$ref" says "points to nothing in this schema"

  @RECIPE-016
  Scenario: References to values found during the run are checked on every path
    Given the broken recipe "references.yaml"
    When I validate it
    Then the problems are exactly those listed in its expect comments
    And the problem at "plan[4].act.text" suggests "read"
    And the problem at "plan[9].set.total" says "loop 'rows', which may run no item"

  @RECIPE-017
  Scenario: Page scripts must be allowed by name, and loops keep their shape
    Given the broken recipe "loops-and-scripts.yaml"
    When I validate it
    Then the problems are exactly those listed in its expect comments
    And the problem at "plan[1].evaluate" says "name 'browser_evaluate' in tools.allow"

  @RECIPE-028
  Scenario: Files to upload are declared inside the recipe's directory
    Given the broken recipe "upload-files.yaml"
    When I validate it
    Then the problems are exactly those listed in its expect comments
    And the problem at "files.outside" says "leads out of the recipe's directory"
    And the problem at "files.absolute" says "not a path relative to the recipe's directory"
    And the problem at "plan[1].act.files[1]" suggests "here"

  @RECIPE-028
  Scenario: Only an upload act names files, and it names at least one
    Given the broken recipe "upload-acts.yaml"
    When I validate it
    Then the problems are exactly those listed in its expect comments
    And the problem at "plan[1].act" says "`upload` needs `files`"
  @RECIPE-021
  Scenario: Tabs named before a step opens them, or named by no step, are refused at their positions
    Given the broken recipe "tabs.yaml"
    When I validate it
    Then the problems are exactly those listed in its expect comments
    And the problem at "plan[4].tab" suggests "terms"
