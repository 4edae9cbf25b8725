Feature: An agent step can do everything a recipe can, in Playwright MCP's words
  The model acts with every act a recipe has and finds elements with every locator kind a recipe
  has, written as one target string (a snapshot ref, or role=button[name="Buy"], label=Email,
  css=#q, A >> B, frame=#f >> B, >> nth=1 ...). Each act runs the way a plan act runs and is
  judged by the same effect check, and the model is told whether it had an effect. Tools carry
  Playwright MCP's names; their old names still work. The model is the real google-genai client
  talking to a scripted Gemini server on loopback; the page is real Chromium.

  Background:
    Given a Gemini server on loopback and an API key in the environment

  @EXEC-090
  Scenario: A model fills a form with every form act, each element found by another kind of locator
    Given the model will call, one per turn:
      | tool                  | arguments                                                                          |
      | browser_type          | {"target": "label=Full name", "text": "Ada"}                                       |
      | browser_type          | {"target": "placeholder=Search the shop", "text": "kettle", "slowly": true}        |
      | browser_press_key     | {"key": "Enter", "target": "css=#search"}                                          |
      | browser_select_option | {"target": "role=listbox[name=\"Colours\"]", "values": ["Red", "Blue"]}            |
      | browser_select_option | {"target": "role=listbox[name=\"Colours\"]", "values": ["Red"], "mode": "remove"}  |
      | browser_select_option | {"target": "role=combobox[name=\"Size\"]", "values": ["Large"]}                   |
      | browser_check         | {"target": "testid=terms"}                                                         |
      | browser_uncheck       | {"target": "label=\"Send me news\""}                                               |
      | browser_file_upload   | {"target": "label=Attachment", "files": ["resume", "photo"]}                       |
      | close                 | {"summary": "Filled in the form"}                                                  |
    When I run "agent/form-acts" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the model was told that each of its 9 acts had an effect
    And the model was offered the upload tool naming the files "photo, resume"

  @EXEC-090
  Scenario: A model hovers, drags, selects text, scrolls and clicks inside sections, lists and frames
    Given the model will call, one per turn:
      | tool                | arguments                                                                        |
      | browser_hover       | {"target": "text=\"Menu\""}                                                      |
      | browser_drag        | {"startTarget": "alt=Card", "endTarget": "title=Drop zone"}                      |
      | browser_select_text | {"target": "xpath=//p[@id='quote']", "text": "quick brown"}                      |
      | browser_click       | {"target": "css=#shipping >> role=button[name=\"Save\"]"}                        |
      | browser_click       | {"target": "css=#items >> role=button[name=\"Add\"] >> nth=1"}                   |
      | browser_type        | {"target": "frame=#payframe >> label=Card number", "text": "4242"}               |
      | browser_scroll      | {"direction": "bottom"}                                                          |
      | close               | {"summary": "Worked the page"}                                                   |
    When I run "agent/pointer-acts" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the model was told that each of its 7 acts had an effect
    And the model was told its hover showed "Menu open" and its selection holds "quick brown"

  @EXEC-091
  Scenario: A model is told when its target is malformed and when its act changed nothing, and recovers
    Given the model will call, one per turn:
      | tool          | arguments                                                   |
      | browser_click | {"target": "role=button[nme=\"Save\"]"}                     |
      | browser_click | {"target": "css=#shipping >> frame=#pay"}                   |
      | browser_click | {"target": "css=#quote"}                                    |
      | browser_click | {"target": "css=#shipping >> role=button[name=\"Save\"]"}   |
      | close         | {"summary": "Saved the shipping section"}                   |
    When I run "agent/one-click" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the model's call 1 failed with "invalid_params" saying "write a role as role=button"
    And the model's call 2 failed with "invalid_params" saying "frame= must be followed by"
    And the model's call 3 was told it had no effect
    And the model's call 4 was told it had an effect

  @EXEC-092
  Scenario: A model goes to another page, waits there in every way a wait step can, and goes back
    Given the model will call, one per turn:
      | tool                  | arguments                                            |
      | browser_click         | {"target": "role=link[name=\"Next page\"]"}          |
      | browser_wait_for      | {"text": "Offers ready"}                             |
      | browser_wait_for      | {"textGone": "Loading the offers"}                   |
      | browser_wait_for      | {"url": "/agent/next.html"}                          |
      | browser_wait_for      | {"selector": "#offers"}                              |
      | browser_wait_for      | {"selector": "#loading", "state": "detached"}        |
      | browser_wait_for      | {"time": 0.05}                                       |
      | browser_wait_for      | {"load": true}                                       |
      | browser_navigate_back | {}                                                   |
      | close                 | {"summary": "Saw the offers and came back"}          |
    When I run "agent/navigation" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And every call of the model succeeded
    And the model's last call went back to "/agent/acts.html"

  @EXEC-093
  Scenario: A recipe and a model that use the tools' old names run as before
    Given the model will call, one per turn:
      | tool           | arguments                                                          |
      | browser_select | {"target": {"css": "#size"}, "value": "l"}                         |
      | browser_type   | {"target": {"placeholder": "Search the shop"}, "text": "kettle"}   |
      | browser_press  | {"key": "Enter", "target": {"css": "#search"}}                     |
      | browser_wait   | {"kind": "text_includes", "value": "searched: kettle"}             |
      | close          | {"summary": "Chose the size and searched"}                         |
    When I run "agent/old-names" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And every call of the model succeeded
    And the tool events name "browser_select_option, browser_type, browser_press_key, browser_wait_for", never an old name

  @EXEC-094
  Scenario: A model can upload only the files its recipe declares, by name
    Given the model will call, one per turn:
      | tool                | arguments                                                            |
      | browser_file_upload | {"target": "label=Attachment", "files": ["/etc/hostname"]}           |
      | browser_file_upload | {"target": "label=Attachment", "paths": ["../form-acts.yaml"]}       |
      | browser_file_upload | {"target": "label=Attachment", "files": ["resume"]}                  |
      | close               | {"summary": "Attached the resume"}                                   |
    When I run "agent/upload-confined" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the model's call 1 failed with "upload_refused" saying "declared: resume"
    And the model's call 2 failed with "upload_refused" saying "never a path"
    And the model's call 3 was told it had an effect
    And the file input received only "resume.txt"

  @EXEC-094
  Scenario: A declared file that leads out of the recipe's directory by the time of the upload is refused
    Given a copy of the recipe "agent/upload-confined" in a directory of its own
    And the model will first turn the declared file into a link to a file outside that directory, then upload "resume"
    And the model will then close saying "Tried to attach the resume"
    When I run the copy against the fixture site
    Then the run ends "error" with stop reason "verification_failed"
    And the model's call 1 failed with "upload_refused" saying "leads out of the recipe's directory"

  @EXEC-094
  Scenario: A recipe sent to the server may not declare files to upload
    When the server's recipe catalog is sent "agent/upload-confined" as text
    Then it is refused as INVALID_ARGUMENT at "files" with "files_not_allowed", naming its line

  @EXEC-095
  Scenario: Plan steps check, uncheck and upload, each verified by the state it leaves
    When I run "agent/plan-acts" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the step "accept" was verified by the box's checked state
    And the step "accept-again" found the box checked already and was verified
    And the step "attach" was verified with the input holding "resume.txt"

  @EXEC-096
  Scenario Outline: The fixed part of a request is at most half of the 10.7 KB it was, as the server receives it
    Given the model will call, one per turn:
      | tool  | arguments              |
      | close | {"summary": "Looked"}  |
    When I run "<recipe>" against the fixture site
    Then the run ends "completed" with stop reason "completed"
    And the model was offered <count> tools
    And the fixed part of its request is what the measure reports, at most 5350 bytes

    Examples:
      | recipe                | count |
      | agent/look-default    | 19    |
      | agent/look-every-tool | 20    |

