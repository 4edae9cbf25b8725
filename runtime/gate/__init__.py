"""The contract -> feature -> test gate.

`verity bdd validate` checks statically that every contract has a tagged scenario, every scenario
is bound by a collected test and every step has a step definition. `verity bdd gate` runs the
suite once and maps each contract to the outcome of the tests that prove it.
"""
