"""kept_forms.judge_typed: what a field holds against what was typed, in the form the control keeps."""

from __future__ import annotations

import pytest

from runtime.browser.action_handlers.kept_forms import judge_typed


def _input(kind: str, value: str) -> dict[str, object]:
    return {"tag": "input", "type": kind, "contenteditable": False, "value": value, "text": None}


@pytest.mark.parametrize(
    ("kind", "typed", "held", "holds"),
    [
        ("time", "6:09 AM", "06:09", True),
        ("time", "6:09 AM", "", False),
        ("time", "12:00 AM", "00:00", True),
        ("time", "12:30 pm", "12:30", True),
        ("time", "0745P", "19:45", True),
        ("time", "18:05", "18:05", True),
        ("time", "13:00 PM", "13:00", False),  # no 13 o'clock in the afternoon
        ("time", "6:09 AM", "18:09", False),
        ("date", "03/15/2024", "2024-03-15", True),
        ("date", "3/5/2024", "2024-03-05", True),
        ("date", "03152024", "2024-03-15", True),
        ("date", "2024-03-15", "2024-03-15", True),
        ("date", "15/03/2024", "", False),
        ("number", "12.5", "12.50", True),
        ("number", "12.5", "12.6", False),
        ("number", "1e2", "100", True),
        ("text", "gold", "gold", True),
        ("text", "gold", "GOLD", False),
        ("email", " a@b.c ", "a@b.c", True),
        ("", "two\nlines", "twolines", True),
    ],
)
def test_kept_form_comparison(kind: str, typed: str, held: str, holds: bool) -> None:
    judged = judge_typed(_input(kind, held), typed, cleared=True)
    assert judged.holds is holds, judged.message
    assert repr(held) in judged.message


def test_textarea_keeps_line_breaks_and_appending_compares_the_end() -> None:
    area = {"tag": "textarea", "type": "", "contenteditable": False, "value": "old\nnew", "text": None}
    assert judge_typed(area, "\nnew", cleared=False).holds
    assert not judge_typed(area, "\nnew", cleared=True).holds


def test_password_messages_never_show_the_value() -> None:
    ok = judge_typed(_input("password", "hunter22x"), "hunter22x", cleared=True)
    refused = judge_typed(_input("password", "hunt"), "hunter22x", cleared=True)
    assert ok.holds and not refused.holds
    # Neither the value, a prefix of it, nor its length.
    assert "hunt" not in ok.message + refused.message
    assert not any(str(n) in ok.message + refused.message for n in (4, 9))
    assert "changed" in ok.message and "does not hold" in refused.message
