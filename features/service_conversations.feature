Feature: Conversations that go on
  A team building a chat over Verity starts a run as a conversation: after its plan, and after
  each message's turn, the run keeps its browser session and waits in ongoing for the next
  message, until the team ends it, the server's idle timeout does, or the server stops.

  @CONV-001 @CONV-002 @CONV-004 @CONV-005
  Scenario: A conversation of four turns over one browser session, replayed gap-free after a restart
    Given the fixture site and the conversation recipes
    And a server
    When a client starts "service-conversation" as a conversation
    Then turn 1 is answered completed and the run waits in ongoing
    When the client sends the steps that read the note
    Then turn 2 is answered completed with "noted in turn 1" and the run waits in ongoing
    When the client sends the steps that open the page again with verity client send
    Then turn 3 is answered completed with "returning visit set-in-turn-1" and the run waits in ongoing
    When the client sends the text "What does the page say now?" to the run, whose model is a loopback Gemini
    Then turn 4 is answered completed by the model, which was shown the page turn 3 left
    When the client ends the run with verity client end
    Then the conversation ends completed with stop reason completed, one stream from seq 1 with ongoing between its four turns
    And every step of the four turns acted in tab "t1"
    And the run's messages are a user message and an answer for each of its four turns
    And its messages listed three a page are the same eight, on three pages, the last without a token
    And a page token of another run, or none ListMessages returned, is refused INVALID_ARGUMENT naming page_token
    And a message to the ended run is refused FAILED_PRECONDITION with reason RUN_NOT_ONGOING
    When a second conversation, which needs no browser, waits in ongoing
    Then a text message to it is refused FAILED_PRECONDITION with reason NO_MODEL when the server has no model
    When the server restarts on its store, with a conversation idle timeout of 0.2 seconds
    Then the first run's stream replays from seq 1 the same events, gap-free
    And the second conversation ended stopped with stop reason interrupted, its stream gap-free from seq 1

  @CONV-003
  Scenario: A conversation left idle ends conversation_idle
    Given the fixture site and the conversation recipes
    And a server started from `verity serve --conversation-idle-seconds 0.2`
    And the config file key conversation_idle_seconds sets the timeout, which must be more than 0
    When a client starts "service-chat" as a conversation
    Then the conversation ends stopped with stop reason conversation_idle after waiting in ongoing
