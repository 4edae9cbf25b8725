"""Verity: a declarative, BDD-first browser agent."""

__version__ = "0.1.0"
