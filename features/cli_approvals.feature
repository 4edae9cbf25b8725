Feature: verity run answers a run's approvals
  A recipe step with needs_approval waits for a person. On a terminal `verity run` asks; for
  scripts and CI the flags answer in advance; with neither, the run fails at once and says how to
  answer, instead of waiting silently until its timeout.

  @SVC2-004
  Scenario: Without a terminal and without an answer the run fails at once naming the step and the flags
    Given a loopback page and a recipe whose steps open and read both need approval
    When I run "verity run" on it with no terminal and no answer
    Then it exits with approval_denied's code, its message naming step open and the flags --approve open and --deny open
    And the verdict's summary says the same, and the step open never ran

  @SVC2-004
  Scenario: An approval given on the command line is not asked for, and the next one is asked on the terminal
    Given a loopback page and a recipe whose steps open and read both need approval
    When I run "verity run" on it with --approve open on a terminal and answer y when it asks
    Then it asked once, about step read with its tool and target, and the run completed
    And every event asking for approval named its step

  @SVC2-004
  Scenario: Answers given in advance are checked against the plan before anything runs
    Given the answers --approve open --deny all
    Then step open is approved, step read denied, and a step named by neither flag denied
    And answers naming a step the plan lacks, or one step in both flags, are refused with the plan's step ids
