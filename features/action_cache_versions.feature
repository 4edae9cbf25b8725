Feature: One task on several versions of one site: the action cache learns, replays and falls back honestly
  The order desk changes between runs as sites do: a field moves into a closed panel, a notice
  page appears between the start and the task, a label comes to name another field. A path the
  first desk taught replays there without the model; on each later version the replay either finds
  nothing to act on or acts on the wrong field, and the step's own verification says so. The model
  then takes the step over, the run completes only when the order is really placed, and the entry
  is replaced only by a path that verified. (That the path replays on the unchanged first desk with
  no model call is action_cache.feature's scenario, on the same desk.)

  @CACHE-008 @CACHE-009
  Scenario: A path learned on the first desk meets each later version: it falls back, is repaired, and never completes wrongly
    Given a Gemini server on loopback and an API key in the environment
    And the order desk in its first version
    When the model learns the desk: it types the customer and the PIN, clicks "Save order" and closes
    When the Customer field moves into a "Customer details" panel that is closed until its button opens it
    And the path the first desk taught is replayed there, and the model opens the panel, types the customer and the PIN, clicks "Save order" and closes
    Then the cached type finds no field, the run falls back at cached step 1 and completes verified after 5 model calls
    And the entry is the path that verified: open the panel, type the customer and the PIN, click "Save order"
    When a notice page whose link "Continue to the desk" leads to the first desk now stands at the start
    And the path the first desk taught is replayed there, and the model follows the link, types the customer and the PIN, clicks "Save order" and closes
    Then the cached type finds no field, the run falls back at cached step 1 and completes verified after 5 model calls
    And the entry is the path that verified: follow the link, type the customer and the PIN, click "Save order"
    When the desk behind the notice is run again for another customer
    Then that run completes with no model call, replayed from the cache
    When "Customer" comes to label a lookup field, and the order's own field is "Name on the order"
    And the path the first desk taught is replayed there, and the model closes at once
    Then every cached act held its own proof, done_when caught the order without a name, and the run ends verification_failed
    And the entry is still the path the first desk taught
    When the replay falls back again, and the model types the customer into "Name on the order", clicks "Save order" and closes
    Then the run falls back after cached step 3, completes verified after 3 model calls, and the order is placed for that customer
    And the entry is the path that verified: the three cached steps that held, then the model's two
