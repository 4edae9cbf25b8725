Feature: Operating the gRPC service safely
  The API is a public contract: bad requests get errors a program can act on, only holders of the
  token get in, limits hold without leaving half-made runs, and shutdowns lose nothing.

  @SERVICE-008
  Scenario: A broken inline recipe is INVALID_ARGUMENT with one field violation per problem
    Given a server
    When a client starts a run with a recipe whose extract field has a wrong type and an unknown key
    Then the call fails with INVALID_ARGUMENT
    And the field violations are "plan[1].extract.fields.price.css" at "<request>:9:22" and "plan[1].extract.fields.price.bogus" at "<request>:9:25"

  @SERVICE-008
  Scenario: Missing and unknown inputs are INVALID_ARGUMENT with input paths
    Given a server that knows the recipe "quote-lite"
    When a client starts "quote-lite" with the input "sight" but not "site"
    Then the call fails with INVALID_ARGUMENT
    And the field violations name "inputs.sight" and "inputs.site"
    And the server has recorded no run

  @SERVICE-008
  Scenario: ValidateRecipe reports problems with line, column and field path; CompileRecipe returns the plan
    Given a server that knows the recipe "quote-lite"
    Then validating the broken recipe reports 2 problems with line, column and field path
    And validating "quote-lite" by name reports it valid
    And compiling "quote-lite" returns the same plan JSON as compiling it locally
    And compiling the broken recipe fails with INVALID_ARGUMENT
    And ListRecipes lists "quote-lite" with its inputs
    And ListRecipes also lists the bundled recipe "demo-quote"
    And starting the unknown recipe "no-such-recipe" fails with NOT_FOUND

  @SERVICE-009
  Scenario: Calls without the right bearer token are UNAUTHENTICATED; health checks need none
    Given a server with the token "s3cret-token-value"
    Then a call without a token fails with UNAUTHENTICATED MISSING_TOKEN
    And a call with the token "wrong" fails with UNAUTHENTICATED INVALID_TOKEN
    And a call with the token "s3cret-token-value" succeeds
    And a call sending the authorization "bearer s3cret-token-value" succeeds
    And a call sending the authorization "Basic s3cret-token-value" fails with UNAUTHENTICATED INVALID_TOKEN
    And a health check without a token reports SERVING

  @SERVICE-009
  Scenario: The server refuses to listen beyond loopback without a token
    When I run "verity serve --host 0.0.0.0" without a token
    Then it exits with code 2 explaining that a token is needed

  @SERVICE-009
  Scenario: The token never appears in the server's logs
    Given a verity serve process with VERITY_TOKEN "tok-d41d8cd98f00b204"
    When clients call it with no token, a wrong token and the right token
    And the server process is stopped with SIGTERM
    Then its log records the rejected calls without any token

  @SERVICE-010
  Scenario: A request above the message size limit is RESOURCE_EXHAUSTED and creates nothing
    Given a server with a 65536 byte message limit
    When a client starts a run with a 100000 byte recipe
    Then the call fails with RESOURCE_EXHAUSTED
    And the server has recorded no run

  @SERVICE-011
  Scenario: Health turns NOT_SERVING when a graceful shutdown begins
    Given a server
    And a health watcher is watching the in-process server
    When the server shuts down with a grace period of 0.2 seconds
    Then the in-process health watcher saw SERVING then NOT_SERVING

  @SERVICE-012
  Scenario: Reflection lists the services
    Given a server
    Then reflection lists "verity.v1.AgentService", "verity.v1.RecipeService" and "grpc.health.v1.Health"
    And reflection describes the StreamRun method of AgentService
