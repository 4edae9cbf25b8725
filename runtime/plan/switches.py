"""The switches a run goes by (recipe/switches.py): the recipe's `switches`, which the compiled
plan keeps, overridden by run options (`verity run --switch no_progress=off`). Pure data: the
executor reads one `RunSwitches` and records it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from runtime.recipe.step_bodies import ACT_KINDS

SWITCH_NAMES = ("no_progress", "auto_repair", "sticky_tab", "verify", "cache")
# The action cache (runtime/store/action_cache.py): replay and learn, neither, or learn afresh.
CACHE_MODES = ("use", "bypass", "refresh")
_ON_OFF = {"on": True, "true": True, "off": False, "false": False}


class SwitchInvalid(ValueError):
    """A run option naming a switch or a value that does not exist; the message says which."""


@dataclass(frozen=True)
class RunSwitches:
    no_progress: bool = True
    auto_repair: bool = True
    sticky_tab: bool = True
    # The act kinds verified leniently; empty: strict (every act shows an effect of its own).
    lenient_acts: tuple[str, ...] = ()
    # use: a cached path replays, a verified agent step is learned; bypass: the cache is neither
    # read nor written; refresh: not read, and a verified agent step replaces its entry.
    cache: str = "use"

    @classmethod
    def of(cls, written: Mapping[str, Any], options: Mapping[str, str] | None = None) -> RunSwitches:
        """The plan's switches (as the recipe wrote them), then each run option over them."""
        verify = written.get("verify", "strict")
        switches = cls(
            no_progress=bool(written.get("no_progress", True)),
            auto_repair=bool(written.get("auto_repair", True)),
            sticky_tab=bool(written.get("sticky_tab", True)),
            lenient_acts=tuple(verify.get("lenient", ())) if isinstance(verify, dict) else (),
            cache=str(written.get("cache", "use")),
        )
        for name, value in (options or {}).items():
            switches = switches._with(name, value)
        return switches

    def _with(self, name: str, value: str) -> RunSwitches:
        text = value.strip().lower()
        if name in ("no_progress", "auto_repair", "sticky_tab"):
            if text not in _ON_OFF:
                raise SwitchInvalid(f"switch {name} is on or off, got {value!r}")
            return replace(self, **{name: _ON_OFF[text]})
        if name == "cache":
            if text not in CACHE_MODES:
                raise SwitchInvalid(f"switch cache is {', '.join(CACHE_MODES)}, got {value!r}")
            return replace(self, cache=text)
        if name == "verify":
            if text == "strict":
                return replace(self, lenient_acts=())
            kinds = tuple(k.strip() for k in text.removeprefix("lenient:").split(",") if k.strip()) if text.startswith("lenient:") else ()
            unknown = [k for k in kinds if k not in ACT_KINDS]
            if not kinds or unknown:
                raise SwitchInvalid(f"switch verify is strict or lenient:<act kinds> (of {', '.join(ACT_KINDS)}), got {value!r}")
            return replace(self, lenient_acts=kinds)
        raise SwitchInvalid(f"unknown switch {name!r}: the switches are {', '.join(SWITCH_NAMES)}")

    def to_data(self) -> dict[str, Any]:
        """Every switch as the run went by it, as the verdict records it."""
        return {"no_progress": self.no_progress, "auto_repair": self.auto_repair, "sticky_tab": self.sticky_tab, "verify": {"lenient": list(self.lenient_acts)} if self.lenient_acts else "strict", "cache": self.cache}

    def changed(self) -> dict[str, Any]:
        """The switches set otherwise than by default: what a reader of the run must know."""
        default = RunSwitches().to_data()
        return {name: value for name, value in self.to_data().items() if value != default[name]}

    def status_detail(self) -> str:
        """What the run's first running status says (the switches set otherwise, or nothing), so a run can be explained later."""
        return f"switches: {self.describe()}" if self.changed() else ""

    def record_in(self, evidence: dict[str, Any]) -> dict[str, Any]:
        """Add the switches set otherwise to a verdict's `evidence`; every switch, for verdict.json."""
        if self.changed():
            evidence["switches"] = self.changed()
        return self.to_data()

    def describe(self) -> str:
        return ", ".join(f"{name}={_shown(value)}" for name, value in self.changed().items())




def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, dict):
        return "lenient:" + ",".join(value["lenient"])
    return str(value)
