Feature: The live smoke scenario a release's live gate runs against a real model
  `verity bdd gate --live` runs the scenarios tagged @live against the model the environment
  names. This one asks an agent step to place an order on a loopback order desk and judges it by
  the step's done_when and the page alone, so any capable model passes it; the offline suite runs
  it against a scripted model on loopback.

  @LIVE-002 @live
  Scenario: An agent step places an order on the order desk with the model the environment names
    Given the model the environment names under a live gate, else a scripted one on loopback
    When an agent step places the order of Ada Lovelace on the order desk
    Then the run completes verified, with the order placed for Ada Lovelace on the page
