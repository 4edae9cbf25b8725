Feature: Recipes sent by clients stay out of the server's files
  A recipe can name a directory of tool descriptors. Sent over gRPC, it may name one only inside
  the directory the server offers, and no reply tells a client anything about the server's disk.

  @SERVICE-029
  Scenario: Without a registry root, a recipe sent by a client may name no tool registry
    Given a server without a tool registry root, and a secret file beside it
    Then validating, compiling and starting a recipe whose tools.registry is "registries/good" are refused at tools.registry
    And no reply names the secret file, its keys, its contents or the server's directories

  @SERVICE-029
  Scenario: Paths out of the registry root are refused alike and reveal nothing
    Given a server whose tool registry root holds a good registry, a broken one, a symlink out and a registry with a file linked out
    Then validating, compiling and starting recipes whose tools.registry is each of these are refused at tools.registry with one reply:
      | registry                 |
      | <absolute secret dir>    |
      | ../secret                |
      | good/../../secret        |
      | escape                   |
      | mixed                    |
      | no-such-registry         |
      | good/tools.json          |
    And the broken registry is refused with one line and no file name, key or content
    And no reply names the secret file, its keys, its contents or the server's directories
    And a recipe naming the good registry validates, compiles with its tool and starts

  @SERVICE-029
  Scenario: A recipe sent by a client cannot read the server's files through a file: URL
    Given a server without a tool registry root, and a secret file beside it
    When a client starts a recipe whose start_url is the secret file's file: URL
    Then StartRun refuses it at target.start_url with scheme_not_allowed and no run is recorded
    And no reply holds the secret file's keys or contents
