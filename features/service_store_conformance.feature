Feature: Both run stores keep the same promises about rows
  One set of store tests judges the SQLite store and the PostgreSQL one: each scenario runs one
  test body against both (Examples: sqlite, postgresql), so rows round-trip field for field,
  listings order and page alike, retention trims alike, and a batch neither refuses differs only
  where PostgreSQL cannot store a NUL character.

  @SERVICE-038
  Scenario Outline: Runs, events and artifacts round-trip, and listings order and page alike
    Given an empty <store> run store
    When 5 runs are written, two of them created at the same nanosecond, with events and artifacts
    Then each run reads back field for field, its last seq following its newest event
    And its events read back in seq order from any seq, a repeated event stored once
    And listing runs is newest first with ties broken by run id, and paging 2 at a time returns each once
    And listing by status and by recipe returns only the matching runs
    And the artifact index lists the newest row of each artifact in seq order

    Examples:
      | store      |
      | sqlite     |
      | postgresql |

  @SERVICE-038
  Scenario Outline: Retention trims a run's oldest events and moves its earliest seq
    Given an empty <store> run store
    And a run with 10 stored events
    When its events before seq 7 are trimmed
    Then 6 events were deleted and events 7 to 10 remain
    And the run's earliest seq is 7

    Examples:
      | store      |
      | sqlite     |
      | postgresql |

  @SERVICE-038
  Scenario Outline: A NUL character in a run's summary never makes a batch the store refuses
    Given an empty <store> run store
    And a run with 1 stored events
    When the run is updated with the summary "before<NUL>after" and an event in one batch
    Then the run's summary reads back as "<summary>" and the event is stored

    Examples:
      | store      | summary                |
      | sqlite     | before\x00after        |
      | postgresql | before\ufffdafter      |
