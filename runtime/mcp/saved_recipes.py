"""`browser_save_recipe`: an MCP browser session's acts as a plain recipe, by the one freezer
(`verity recipe freeze`, runtime/learn/): the session's run is ended (as browser_close ends it:
a finished, verified run is what freezing reads), then frozen. Its acts are the recipe's steps, a
secret typed by name is its `{name}` input placeholder, never the value; the reads (snapshots,
screenshots, evaluated functions) leave nothing to repeat.

The text comes back to the client; with `path`, it is also written there, inside the server's
recipes directory and nowhere else (a new file only: a recipe the server has is never replaced),
so the server then offers it as a tool.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types as types

from runtime.learn import FreezeRefused, freeze_run
from runtime.mcp.browser_session import CLOSE_CALL, BrowserSessions

SAVE_TOOL = "browser_save_recipe"
SAVED_SUMMARY = "the MCP client saved the session as a recipe"
SAVE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "The recipe's name: lowercase letters, digits, '.', '_' and '-'."},
        "goal": {"type": "string", "description": "What the recipe does, in plain words (the session's goal when left out)."},
        "path": {"type": "string", "description": "Also write it to this .yaml file, relative to the server's recipes directory."},
    },
    "required": ["name"],
}
SAVE_HELP = (
    "End this session (as browser_close does) and answer with its acts as a plain recipe that validates: a secret typed by "
    "name is its {name} input. With path, also write it into the server's recipes directory, where it becomes a tool."
)


def save_tool() -> types.Tool:
    return types.Tool(name=SAVE_TOOL, description=SAVE_HELP, input_schema=SAVE_SCHEMA)


class SessionSaver:
    """Saves the browser session of an MCP session key as a recipe."""

    def __init__(self, sessions: BrowserSessions, runs_dir: Path, recipes_dir: Path | None) -> None:
        self._sessions = sessions
        self._runs_dir = runs_dir
        self._recipes_dir = recipes_dir.resolve() if recipes_dir is not None else None

    async def save(self, key: str, arguments: dict[str, Any]) -> types.CallToolResult:
        name, goal = arguments.get("name"), arguments.get("goal")
        if not isinstance(name, str) or not name:
            return _failed("name is required: the recipe's name, such as 'open-the-form'")
        target = self._target(arguments.get("path"))
        if isinstance(target, str):
            return _failed(target)  # refused before the session is ended: the client may call again
        run_id, answer = await self._sessions.call(key, CLOSE_CALL, {"summary": SAVED_SUMMARY})
        verdict = answer.ended or {}
        if verdict.get("stop_reason") != "completed":
            return _failed(f"the session's run ended {verdict.get('stop_reason')} ({verdict.get('summary')}): only a completed session is saved")
        try:
            text = freeze_run(self._runs_dir / run_id, name=name, goal=goal if isinstance(goal, str) and goal else None)
        except FreezeRefused as refused:
            return _failed(str(refused))
        said: dict[str, Any] = {"ok": True, "name": name, "run_id": run_id}
        if target is not None:
            try:
                with target.open("x", encoding="utf-8") as written:  # a new file only, never one the server has
                    written.write(text)
            except OSError as error:
                return _failed(f"the recipe is valid but could not be written to {arguments['path']}: {error.strerror or error}", text)
            said["path"] = str(target.relative_to(self._recipes_dir)) if self._recipes_dir else str(target)
        return types.CallToolResult(content=[types.TextContent(text=json.dumps(said, ensure_ascii=False)), types.TextContent(text=text)])

    def _target(self, path: Any) -> Path | None | str:
        """The file `path` names inside the recipes directory, None without a path, or why not."""
        if path in (None, ""):
            return None
        if self._recipes_dir is None:
            return "this server has no recipes directory (--recipes-dir): leave path out and keep the text"
        if not isinstance(path, str) or Path(path).suffix not in (".yaml", ".yml"):
            return f"path must name a .yaml file inside the server's recipes directory, got {path!r}"
        target = (self._recipes_dir / path).resolve()
        if not target.is_relative_to(self._recipes_dir):
            return f"path {path!r} leads outside the server's recipes directory: a recipe is written only inside it"
        if target.exists():
            return f"{path} exists already: the server's recipes are never replaced; choose a new path"
        target.parent.mkdir(parents=True, exist_ok=True)
        return target


def _failed(message: str, text: str = "") -> types.CallToolResult:
    content: list[types.ContentBlock] = [types.TextContent(text=json.dumps({"ok": False, "error": message}, ensure_ascii=False))]
    if text:
        content.append(types.TextContent(text=text))
    return types.CallToolResult(content=content, is_error=True)
