"""Small computations in recipe text, without JavaScript and without Python: `{= <expression>}`.

An expression is written in a safe subset of Python's expression syntax and evaluated by
simpleeval (a well-kept, single-purpose library that walks the parsed expression itself, never
`eval`), narrowed further here:

- names: the run's inputs and built-ins (`goal`), `vars.<name>` and `steps.<step_id>.<field>`;
- arithmetic, comparisons, `and`/`or`/`not`, `x if cond else y`, `in`, indexing and slicing
  (`word[0:3]`), list and map literals (`{"Nov": 11}[month]` is a lookup table);
- the functions of FUNCTIONS (functions.py), each pure and bounded; nothing else: no attributes on values
  (no methods), no f-strings, no comprehensions, no assignment, no imports.

Cost is bounded: an expression is at most MAX_EXPRESSION_CHARS long, has no loops, and every
operation that could grow without bound is capped (powers, repeated and joined strings, padding
and format widths, `%` formatting is refused).

Errors are ExpressionError: the loader reports parse and name problems with the field's path
(`check_expression`); a failure while evaluating (a division by zero, a text where a number is
needed) stops the step that filled the text.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import simpleeval

from runtime.template.functions import FUNCTIONS, OPERATORS, ExpressionError, as_text

EXPRESSION_OPEN = "{="
MAX_EXPRESSION_CHARS = 1000

# The syntax an expression may use; anything else is refused before it runs.
_ALLOWED_NODES = (
    ast.Expression, ast.Name, ast.Load, ast.Constant, ast.Attribute, ast.Call, ast.BinOp, ast.UnaryOp,
    ast.BoolOp, ast.Compare, ast.IfExp, ast.Subscript, ast.Slice, ast.List, ast.Tuple, ast.Dict,
    ast.operator, ast.unaryop, ast.boolop, ast.cmpop,
)  # fmt: skip
_SCOPES = ("vars", "steps")


class _Scope:
    """`vars` and `steps` (and `steps.<id>`) inside an expression: attribute access reads a value
    of the run by its reference name, and nothing else has attributes."""

    def __init__(self, prefix: str, values: Mapping[str, Any]) -> None:
        self._prefix = prefix
        self._values = values

    def member(self, name: str) -> Any:
        full = f"{self._prefix}.{name}"
        if self._prefix == "steps":
            return _Scope(full, self._values)
        try:
            return self._values[full]
        except KeyError:
            raise ExpressionError(f"no value {full} yet") from None


class _Evaluator(simpleeval.EvalWithCompoundTypes):
    def __init__(self, values: Mapping[str, Any]) -> None:
        super().__init__(operators=OPERATORS, functions=dict(FUNCTIONS), names=self._name)
        self._values = values
        for refused in (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.JoinedStr, ast.FormattedValue, ast.Assign, ast.AugAssign, ast.Import):
            self.nodes.pop(refused, None)

    def _name(self, node: ast.Name) -> Any:
        if node.id in _SCOPES:
            return _Scope(node.id, self._values)
        if node.id in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[node.id]
        try:
            return self._values[node.id]
        except KeyError:
            raise ExpressionError(f"no value {node.id!r}") from None

    def _eval_attribute(self, node: ast.Attribute) -> Any:
        owner = self._eval(node.value)
        if isinstance(owner, _Scope):
            return owner.member(node.attr)
        raise ExpressionError(f".{node.attr}: values have no attributes here; use a function such as lower(x)")


def _quoted_text_as_written(text: str) -> str:
    """The expression with each of its quoted texts made raw ('...' -> r'...'): a backslash inside
    quotes stays as written, so a regular expression reads as the recipe wrote it. Python's escapes
    would turn '\\a' into U+0007 and '\\b' into a backspace, which a recipe (a `>-` folded scalar
    or a double-quoted one alike) never means."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return text  # the parser says what is wrong with it
    line_starts = [0]
    for line in text.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))
    pieces, at = [], 0
    for token in tokens:
        if token.type != tokenize.STRING or token.string[0] not in "'\"uU":
            continue
        start = line_starts[token.start[0] - 1] + token.start[1]
        quoted = token.string[1:] if token.string[0] in "uU" else token.string
        pieces += [text[at:start], "r" + quoted]
        at = start + len(token.string)
    return "".join(pieces) + text[at:]


def parse(expression: str) -> ast.Expression:
    """The parsed expression, its syntax checked. Raises ExpressionError saying what is wrong."""
    text = _quoted_text_as_written(expression.strip())
    if not text:
        raise ExpressionError("an empty expression: write one after `{=`")
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ExpressionError(f"the expression is {len(text)} characters long (at most {MAX_EXPRESSION_CHARS})")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as error:
        raise ExpressionError(f"cannot read expression {text!r}: {error.msg} at column {error.offset}") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise ExpressionError(f"{type(node).__name__} is not available in an expression ({text!r})")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
                called = ast.unparse(node.func)
                raise ExpressionError(f"unknown function {called!r} in {text!r}; the functions are {', '.join(sorted(FUNCTIONS))}")
            if node.keywords:
                raise ExpressionError(f"{node.func.id}() takes its arguments by position, not by name")
        if isinstance(node, ast.Attribute) and _reference_name(node) is None and not _is_partial_reference(node):
            raise ExpressionError(f"{ast.unparse(node)!r}: only vars.<name> and steps.<step_id>.<field> have parts after a dot")
    return tree


def _reference_name(node: ast.AST) -> str | None:
    """`vars.x` / `steps.read.price` as a reference name, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "vars":
        return f"vars.{node.attr}"
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and isinstance(node.value.value, ast.Name):
        if node.value.value.id == "steps":
            return f"steps.{node.value.attr}.{node.attr}"
    return None


def _is_partial_reference(node: ast.Attribute) -> bool:
    # `steps.read` inside `steps.read.price`: checked as part of the whole reference.
    return isinstance(node.value, ast.Name) and node.value.id == "steps"


def names_used(expression: str) -> list[str]:
    """The placeholder names an expression reads (inputs, built-ins, `vars.x`, `steps.s.f`), in
    order. Raises ExpressionError when it cannot be parsed or uses what is not available."""
    tree = parse(expression)
    names: list[str] = []
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    inside_reference: set[int] = set()
    for node in ast.walk(tree):
        reference = _reference_name(node) if isinstance(node, ast.Attribute) else None
        if reference is not None:
            names.append(reference)
            inside_reference.update(id(child) for child in ast.walk(node))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and id(node) not in called and id(node) not in inside_reference:
            if node.id in _SCOPES:
                raise ExpressionError(f"write {node.id} as {'vars.<name>' if node.id == 'vars' else 'steps.<step_id>.<field>'}")
            if node.id not in ("true", "false", "null"):
                names.append(node.id)
    return list(dict.fromkeys(names))


def evaluate(expression: str, values: Mapping[str, Any]) -> Any:
    """The expression's value, its names looked up in `values` by placeholder name."""
    tree = parse(expression)
    evaluator = _Evaluator(values)
    try:
        result = evaluator.eval(expression.strip(), previously_parsed=tree.body)
    except ExpressionError:
        raise
    except simpleeval.InvalidExpression as error:
        raise ExpressionError(f"{expression.strip()!r}: {error}") from None
    except (ArithmeticError, TypeError, ValueError, IndexError, KeyError, OverflowError) as error:
        shown = error.args[0] if isinstance(error, KeyError) and error.args else error
        kind = "no such key or index" if isinstance(error, (KeyError, IndexError)) else type(error).__name__
        raise ExpressionError(f"{expression.strip()!r} failed: {kind}: {shown}") from None
    if isinstance(result, _Scope):
        raise ExpressionError(f"{expression.strip()!r} names no value: write vars.<name> or steps.<step_id>.<field>")
    return result


# --- expressions inside recipe text --------------------------------------------------------------


def split_text(text: str) -> Iterator[tuple[str, str | None]]:
    """`text` as (literal, expression) pieces: each `{= ... }` is one expression (its braces may
    nest, as in a map literal, and its strings may hold braces); `{{=` is a literal `{=`. The
    literal pieces keep their own `{placeholders}` and escapes for the placeholder filler."""
    start = 0
    index = 0
    while index < len(text):
        if text.startswith("{{", index):
            index += 2
            continue
        if text.startswith(EXPRESSION_OPEN, index):
            end = _closing_brace(text, index + len(EXPRESSION_OPEN))
            yield text[start:index], text[index + len(EXPRESSION_OPEN) : end]
            index = start = end + 1
            continue
        index += 1
    if start < len(text):
        yield text[start:], None


def _closing_brace(text: str, index: int) -> int:
    depth = 0
    quote: str | None = None
    while index < len(text):
        char = text[index]
        if quote is not None:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char in "{[(":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                if char == "}":
                    return index
                break
            depth -= 1
        index += 1
    raise ExpressionError(f"`{{=` without its closing `}}` in {text!r}")


def has_expression(text: str) -> bool:
    return any(expression is not None for _literal, expression in split_text(text))


def single_expression(text: str) -> str | None:
    """The expression when `text` is exactly one `{= ...}`: its value keeps its type when filled."""
    pieces = list(split_text(text)) if EXPRESSION_OPEN in text else []
    if len(pieces) == 1 and pieces[0][0] == "" and pieces[0][1] is not None:
        return pieces[0][1]
    return None


def fill_expressions(text: str, values: Mapping[str, Any], literal: Callable[[str], str] = lambda piece: piece) -> str:
    """`text` with each `{= ...}` replaced by its value as text; literal pieces go through `literal`
    (the placeholder filler, or nothing for a regular expression)."""
    if EXPRESSION_OPEN not in text:
        return literal(text)
    return "".join(literal(piece) + ("" if expression is None else as_text(evaluate(expression, values))) for piece, expression in split_text(text))


__all__ = ["EXPRESSION_OPEN", "ExpressionError", "as_text", "evaluate", "fill_expressions", "has_expression", "names_used", "parse", "single_expression", "split_text"]
