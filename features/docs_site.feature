Feature: The documentation builds, and its recipes run
  README.md and docs/ are read by people who copy what they show. The suite builds the site the
  way CI would publish it, offline, so a broken link or a page missing from the nav is caught, and
  validates every recipe example, so an example that no longer validates is caught where it is
  written.

  @DOCS-001
  Scenario: The site builds strictly without a network
    Given the repository's mkdocs.yml and docs/
    When the site is built with mkdocs build --strict in a network namespace with no network
    Then the build succeeds
    And every page of the nav is built
    And no built page loads anything from outside the site

  @DOCS-001
  Scenario: A page left out of the nav fails the build
    Given a copy of the docs with a page that the nav does not list
    When the copy is built with mkdocs build --strict
    Then the build fails naming "orphan.md"

  @DOCS-001
  Scenario: A link to a page that does not exist fails the build
    Given a copy of the docs whose quick start links to "no-such-page.md"
    When the copy is built with mkdocs build --strict
    Then the build fails naming "no-such-page.md"

  @DOCS-001
  Scenario: A link to an anchor no heading makes fails the build
    Given a copy of the docs whose quick start links to "recipes/index.md#no-such-heading"
    When the copy is built with mkdocs build --strict
    Then the build fails naming "#no-such-heading"

  @DOCS-002
  Scenario: Every recipe example in README.md and docs/ validates
    Given the YAML blocks of README.md and docs/
    When the examples are validated with verity recipe validate
    Then every recipe example is valid
    And every fragment is marked on its first line and parses as YAML
    And the quick start's first recipe is among the examples

  @DOCS-002
  Scenario: A bad example is reported at its doc file and line
    Given a doc page whose recipe example misspells a key on the page's line 9
    When the examples are validated with verity recipe validate
    Then the page's example is reported at "bad-example.md:9" with "unknown_key"

  @DOCS-002
  Scenario: A block that is not a whole recipe must be marked a fragment
    Given a doc page with an unmarked list of plan steps and a marked fragment
    When the examples are validated with verity recipe validate
    Then the unmarked block is reported at its page's line with "missing_key"
    And the marked fragment is counted as a fragment, not validated
