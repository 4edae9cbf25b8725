Feature: A user's secrets never land in a run's evidence
  A run types a secret API token (marked `secret: true`, read from the environment with @env:)
  into a plain field and PINs nobody marked into password fields, by plan steps and by an agent
  step against the loopback Gemini server, with OTLP export, content capture and DEBUG logging on.
  The values reach the fields; everything the run leaves behind shows «secret:<name>» instead.

  @SECRET-001 @SECRET-002 @SECRET-004 @SECRET-005
  Scenario: verity run types secrets for real and writes none of them anywhere
    Given a loopback OTLP receiver for the secrets runs
    And the scripted model types the token by its placeholder and its own PIN into the password field
    When "verity run" runs the secret-login recipe with api_key=@env:VAULT_TOKEN at DEBUG log level
    Then the run completed, so the agent field holds the real token
    And no file of the run directory holds a secret value or its first 4 characters
    And no exported span, no model request and nothing the command printed holds a secret value or its first 4 characters
    And events.jsonl shows «secret:api_key» where the token was typed, and the PIN only as a changed password field
    And the type_token act's evidence says the token field holds «secret:api_key»
    And output.json holds the extracted echo of the token as «secret:api_key»
    And the model was told the placeholder «secret:api_key» and sent it back as the text to type

  @SECRET-003 @SECRET-004
  Scenario: A served run keeps its secrets out of the stream, GetRun, the store and the server's log
    Given a loopback OTLP receiver for the secrets runs
    And "verity serve" at DEBUG log level with VERITY_SECRET_TOKEN in its environment
    And the scripted model types the token by its placeholder and its own PIN into the password field, twice
    When "verity client run" runs the secret-login recipe with api_key=@env:VERITY_SECRET_TOKEN
    And a gRPC client starts the secret-login recipe with the token itself as api_key and follows it to the end
    Then both runs completed
    And no stream event, GetRun answer, client output, run directory file, exported span or model request holds a secret value or its first 4 characters
    And the run store file and the server's log hold no secret value or its first 4 characters
    And GetRun shows the api_key input of both runs as «secret:api_key», whether it was sent or read from the environment
    And the streamed events show «secret:api_key» where the token was typed
    And a StartRun with api_key=@env:GEMINI_API_KEY or an unset VERITY_SECRET_ variable is refused as INVALID_ARGUMENT naming the variable

  @SECRET-004
  Scenario: An @env: input whose variable is missing is an error naming the variable, and nothing runs
    When "verity run" runs the secret-login recipe with api_key=@env:VERITY_NOT_SET_ANYWHERE
    Then it exits with invalid_input's code, naming inputs.api_key and VERITY_NOT_SET_ANYWHERE
    And no run directory was written

  @SECRET-004
  Scenario: An input given as @env: is secret even when the recipe does not mark it
    When the secret-login recipe's inputs are resolved with site=@env:SITE_BASE and the token given as it is
    Then site and api_key are the run's secret inputs, with the values read and given
    And the run's registry shows the site's value as «secret:site» and types its marker as the value
