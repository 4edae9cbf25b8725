Feature: Artifact bytes on PostgreSQL outlive the server that recorded them
  A server on a PostgreSQL store copies each artifact's bytes into the database, one copy per
  content, so another server serves them after the first is gone with its run directories; bytes
  that differ from what was recorded are not copied, and the other server answers DATA_LOSS.

  @SERVICE-041
  Scenario: An artifact recorded by one server on PostgreSQL is served by another after the first is gone
    Given a PostgreSQL database
    And a server on that database whose run recorded a screenshot and a report, and whose second run recorded the same screenshot
    When that server is stopped and its run directories are deleted
    And another server with run directories of its own is started on that database
    Then GetArtifact on the other server returns every listed artifact's bytes, matching its sha256 and size
    And the database keeps one copy of each content: 2 blobs for 3 artifact rows

  @SERVICE-041
  Scenario: An artifact whose file does not hold the recorded bytes is not copied, and another server answers DATA_LOSS
    Given a PostgreSQL database
    And a server on that database whose run recorded a screenshot whose file holds other bytes than recorded
    When that server is stopped and its run directories are deleted
    And another server with run directories of its own is started on that database
    Then GetArtifact of that screenshot on the other server fails with DATA_LOSS ARTIFACT_MISSING
    And the database keeps no blob
