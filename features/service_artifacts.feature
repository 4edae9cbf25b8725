Feature: Any client fetches a run's artifacts through GetArtifact
  GetRun lists a run's artifacts by id, media type, size and sha256; GetArtifact streams their bytes
  in chunks, so a service with no access to the server's disk sees what the run saw. It serves only
  the artifacts the run lists, only from inside that run's directory, checks the bytes against the
  recorded sha256, and is authorised like every other call.

  @SERVICE-034
  Scenario: A client without the server's disk fetches a real run's report and screenshots
    Given the fixture site and the article recipes
    And a verity serve process
    When a client runs "service-article" with Run
    And the client downloads every artifact GetRun lists with "verity client artifact"
    Then every downloaded file has the size and sha256 GetRun lists
    And the downloads include the run's report.html and a PNG screenshot
    And the report downloaded is byte for byte the report.html in the run's directory

  @SERVICE-034
  Scenario: Small chunks arrive in order and add up to the artifact
    Given the fixture site and the article recipes
    And a server
    When a client runs "service-article" with Run
    And the client fetches the run's report through GetArtifact in chunks of 1024 bytes
    Then the chunks' offsets follow each other from 0 and only the first carries the artifact's description
    And the bytes have the sha256 GetRun lists for the report

  @SERVICE-035
  Scenario Outline: GetArtifact serves nothing beyond the run's own listed artifacts
    Given a server with a token
    And a stored run whose artifact index holds <entry>
    When a client asks GetArtifact for that entry <how>
    Then the call fails with <code>
    And no byte of the file outside the run reached the client

    Examples:
      | entry                                                       | how                         | code              |
      | a path climbing out of the run's directory                 | with the token              | PERMISSION_DENIED |
      | a symlink inside the run's directory to a file outside it  | with the token              | PERMISSION_DENIED |
      | a screenshot                                                | without a token             | UNAUTHENTICATED   |
      | a screenshot                                                | by an id the run never had  | NOT_FOUND         |
      | a screenshot                                                | of another run's id         | NOT_FOUND         |

  @SERVICE-035
  Scenario: A listed artifact whose bytes changed is DATA_LOSS and leaves no file behind
    Given a server with a token
    And a stored run whose artifact index holds a screenshot whose bytes changed after it was recorded
    When "verity client artifact" downloads it to a file
    Then the command fails naming the sha256 mismatch and no file was written
