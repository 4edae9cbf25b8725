"""Does the run mean to log in? Judged once per run, from the compiled plan alone.

A login page is a blocker only for a run that has no way past it. A run has one when its plan

- types into a password field: an `act` whose `type` locator names a password (`css: "#password"`,
  `label: Password`, `placeholder: 密码`, `role: textbox, name: Password` ...); or
- hands the login to a model: an `agent` step whose task, or the recipe's goal, speaks of logging
  in or signing in ("Log in with these credentials", "sign in as {user}", "登录").

A goal that speaks of logging in with no agent step and no password to type has no way to log in:
nothing in the plan could fill the form. The judgement (`LoginMeans`) goes into the evidence of
every login page the run accepts, so a reader sees why that page was not a blocker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from runtime.plan.model import Plan, State
from runtime.plan.state_kinds import ACT, AGENT

# Words for a password field in a locator (its CSS, label, placeholder, accessible name ...).
PASSWORD_WORDS = re.compile(r"pass(?:word|wd|code|phrase)|\bpwd\b|密码|口令|パスワード|passwort|mot de passe|contraseña", re.IGNORECASE)
# Words for logging in, in a task or a goal.
LOGIN_WORDS = re.compile(
    r"\b(?:log(?:s|ged|ging)?|sign(?:s|ed|ing)?)[- ]?(?:in|into|on)\b|\blogin\b|\bsignin\b|登录|登入|ログイン|\banmelden\b|se connecter|iniciar sesión",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class LoginMeans:
    """The plan step through which the run logs in, and why it counts as one."""

    state_id: str
    reason: str

    def evidence(self) -> dict[str, Any]:
        return {"state": self.state_id, "reason": self.reason}


def login_means(plan: Plan) -> LoginMeans | None:
    """The first plan step that logs in (see the module rules), or None: the run cannot log in."""
    for state in plan.states:
        means = _typed_password(state) if state.kind == ACT else _agent_login(state, plan.goal) if state.kind == AGENT else None
        if means is not None:
            return means
    return None


def _typed_password(state: State) -> LoginMeans | None:
    locator = state.params.get("type")
    if not isinstance(locator, dict):
        return None
    # The element's own keys only: a username field `within` a "#password-form" is no password.
    for key, value in locator.items():
        if isinstance(value, str) and (match := PASSWORD_WORDS.search(value)):
            return LoginMeans(state.id, f"step {state.id!r} types into a password field ({key} {value!r} names {match.group(0)!r})")
    return None


def _agent_login(state: State, goal: str) -> LoginMeans | None:
    task = str(state.params.get("task", ""))
    if match := LOGIN_WORDS.search(task):
        return LoginMeans(state.id, f"agent step {state.id!r} is told to log in (its task says {match.group(0)!r})")
    if match := LOGIN_WORDS.search(goal):
        return LoginMeans(state.id, f"agent step {state.id!r} works towards a goal that says {match.group(0)!r}")
    return None
