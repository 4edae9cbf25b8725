"""Learning from runs: a recipe frozen from a verified run (`verity recipe freeze`)."""

from runtime.learn.frozen_recipe import FreezeRefused, freeze_run

__all__ = ["FreezeRefused", "freeze_run"]
