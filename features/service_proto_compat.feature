Feature: The wire contract stays compatible
  Other services compiled against verity.v1 keep working: a field number, once published, keeps
  its meaning forever.

  @SERVICE-023
  Scenario: Removing a field is allowed only by reserving its number and name
    Given a copy of the published protos
    Then the field check passes
    When the copy drops Event.trace_id without reserving it
    Then the field check reports "trace_id (4) was removed without `reserved 4;`"
    When the copy reserves the number 4 and the name "trace_id" in Event
    Then the field check passes
    When the copy gives the number 4 to a new field "trace" in Event
    Then the field check reports "number 4 of removed 'trace_id' is reused by 'trace'"

  @SERVICE-023
  Scenario: The committed protos match the committed field lock
    When I run the field check on the repository
    Then it reports no breaking changes and a current lock
