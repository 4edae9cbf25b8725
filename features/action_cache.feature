Feature: A verified action cache replays an agent step without its model, judged as the step is
  When an agent step's done_when holds, the acts its model performed are kept in the run store,
  keyed on the step, the page it started on, the names of the inputs it reads and the model,
  prompt and tools. The next run replays them without the model; every act's own proof and the
  step's done_when judge the replay, and the first thing that does not hold hands the step back to
  its model from that point. A page changed so that the cached click lands on another element is
  caught by that verification, not only a click that throws.

  @CACHE-001 @CACHE-002 @CACHE-003 @CACHE-004 @CACHE-005 @CACHE-006
  Scenario: The order desk is learned, replayed, changed, repaired by the agent, replayed again, bypassed, refreshed and cleared
    Given a Gemini server on loopback and an API key in the environment
    And an order desk whose "Save order" button places the order
    When the model closes at once, and the run does not verify
    Then the action cache holds nothing
    When the model types the customer by its ref and the PIN by its label, clicks "Save order" by its ref and closes
    Then the run completes and the cache holds its three acts, the customer and PIN only as placeholders
    When the desk is run again for another customer
    Then it completes with no model call, replayed from the cache
    When the desk is changed so that "Save order" saves a draft and "Confirm order" places the order
    And the model, handed the step after the replay, clicks "Confirm order" by its ref and closes
    Then the replay's wrong click is caught by done_when, the run falls back to the model and completes verified
    And the fallback is in the events, executions.json and the verdict, and the entry is replaced by the verified path
    When the changed desk is run again for another customer
    Then it completes with no model call, replayed from the cache
    When the changed desk is run with the switch cache=bypass while the model places the order
    Then the bypassed run asked the model, left the cache as it was, and records cache=bypass in its events and verdict
    When the changed desk is run with the switch cache=refresh while the model places the order
    Then the refreshed run asked the model and its verified path replaced the entry
    And verity cache list names the entry, show prints its steps with the PIN as a placeholder, and clear empties the cache

  @CACHE-007
  Scenario: Servers on one PostgreSQL database share one action cache
    Given a fresh PostgreSQL database as the run store
    When one server learns a path into the action cache
    Then another server on the database finds it, verity cache lists it there, and clearing it on one empties it for both
