Feature: The verity.v1 API is a stable, versioned contract
  Other services build on the proto files. The proto mirrors the runtime's event model exactly,
  follows buf's naming rules, and the committed stubs are what the protos generate.

  @SERVICE-014
  Scenario: The committed stubs are exactly what the proto files generate
    When the stubs are regenerated into a temporary folder
    Then they equal the committed stubs

  @SERVICE-014
  Scenario: The generated stubs import as part of the runtime package
    When a fresh Python process imports the stubs from another working directory
    Then the import succeeds and names the verity.v1 services

  @SERVICE-014
  Scenario: Every runtime event payload and outcome name has its proto counterpart
    Then the payload dataclasses and the proto messages match field for field
    And every kind of event survives the trip to proto and back unchanged
    And every enum starts with an UNSPECIFIED value 0

  @SERVICE-014
  Scenario: The proto files follow buf's naming rules
    Then every RPC takes <Rpc>Request and returns <Rpc>Response, each used once
    And every enum value is prefixed with its enum's name
    And every file's package verity.v1 matches its folder
