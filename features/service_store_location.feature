Feature: A store Verity cannot use is refused at start-up
  `verity serve` keeps its runs in a SQLite file or a PostgreSQL database. Any other database URL
  or a directory given as the store, on the command line or in the config file, is refused before
  anything is created, with a message that names what was given and what the server takes.

  @SERVICE-033
  Scenario Outline: An unusable store is refused before anything is created
    Given an empty working directory
    When I start "verity serve" there with the store given as <store> <how>
    Then it exits with code 2 and a message naming <store> and "SQLite file"
    And the working directory holds nothing the server created

    Examples:
      | store                                         | how                    |
      | mysql://root@127.0.0.1/runs                   | on the command line    |
      | redis://127.0.0.1:6379/0                      | on the command line    |
      | mysql://root@127.0.0.1/runs                   | in the config file     |
      | runs-folder                                   | as an existing folder  |
