"""Does a `then` step definition check anything?

A scenario bound to a test proves nothing if its Then steps cannot fail. The rule, applied to the
step function's source with `ast`: a function checks something when its own body contains

- an `assert` statement or a `raise` statement;
- a call to `pytest.fail`, `pytest.raises`, `pytest.warns` or `pytest.deprecated_call`, or to any
  callable whose name starts with `assert` (`assert_called_once_with`, `assertEqual`, ...);
- a call to a function of the project that checks something by this same rule.

A check that cannot fail does not count: an assert of a constant that holds (`assert True`), of an
expression compared with itself (`assert evidence == evidence`), and any check inside a `try` whose
handler catches its failure (AssertionError, Exception, BaseException or a bare `except`) without
raising again. `assert False` after a test of its own still counts: it can fail.

Callees are resolved as Python resolves them at run time, from the function's globals and closure:
`name(...)`, `module.name(...)`, `Class.method(...)`, `self.method(...)` in a method, and
`param.method(...)` when the parameter is annotated with a class. A nested function counts when
the body refers to it by name (it may be called, or handed to a helper that calls it). Only
project code is followed: a library function raising on bad input is not the test checking
anything. What cannot be resolved counts as checking nothing, so the rule errs towards asking for
an explicit `assert`.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import sysconfig
import textwrap
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

_CHECKING_PYTEST_CALLS = frozenset(
    id(function) for function in (pytest.fail, pytest.raises, pytest.warns, pytest.deprecated_call)
)
_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_MAX_DEPTH = 6  # how deep calls are followed; a check buried deeper than this is not found
_LIBRARY_DIRECTORIES = tuple(
    Path(path).resolve() for path in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
)


class ThenStepJudge:
    """Judges step functions of one project; remembers every function it has already judged."""

    def __init__(self, project_root: Path) -> None:
        self.project_root = project_root.resolve()
        self._verdicts: dict[Any, bool] = {}
        self._in_progress: set[Any] = set()

    def is_project_code(self, function: Callable[..., object]) -> bool:
        path = _source_path(function)
        if path is None or not path.is_relative_to(self.project_root):
            return False
        return not any(path.is_relative_to(library) for library in _LIBRARY_DIRECTORIES)

    def checks_something(self, function: Callable[..., object]) -> bool:
        return self._checks(inspect.unwrap(function), _MAX_DEPTH)

    def _checks(self, function: Callable[..., object], depth: int) -> bool:
        code = getattr(function, "__code__", None)
        if code is None or depth <= 0 or code in self._in_progress:
            return False  # a recursive call proves nothing until the body does
        if code in self._verdicts:
            return self._verdicts[code]
        self._in_progress.add(code)
        definition = _parse_function(function)
        verdict = definition is not None and self._body_checks(definition, function, depth)
        self._in_progress.discard(code)
        # A "no" found inside a cycle or at a reduced depth may turn into a "yes" from the top.
        if verdict or not self._in_progress:
            self._verdicts[code] = verdict
        return verdict

    def _body_checks(
        self, definition: ast.FunctionDef | ast.AsyncFunctionDef, function: Callable[..., object], depth: int
    ) -> bool:
        scope = _Scope(function, definition)
        for node in _own_nodes(definition):
            if isinstance(node, ast.Assert) and cannot_fail(node.test):
                continue
            if isinstance(node, (ast.Assert, ast.Raise)):
                return True
            if isinstance(node, ast.Call) and self._call_checks(node, scope, depth):
                return True
        return False

    def _call_checks(self, call: ast.Call, scope: _Scope, depth: int) -> bool:
        if _callee_name(call.func).startswith("assert"):
            return True
        callee = scope.resolve(call.func)
        if callee is None:
            return False
        if id(callee) in _CHECKING_PYTEST_CALLS:
            return True
        callee = inspect.unwrap(callee) if callable(callee) else callee
        if not isinstance(callee, types.FunctionType) or not self.is_project_code(callee):
            return False
        return self._checks(callee, depth - 1)


class _Scope:
    """The names a function body can see, to resolve the callee of a call expression."""

    def __init__(self, function: Callable[..., object], definition: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.function = function
        self.names: dict[str, Any] = dict(getattr(function, "__globals__", {}))
        closure = getattr(function, "__closure__", None) or ()
        for name, cell in zip(function.__code__.co_freevars, closure, strict=False):
            try:
                self.names[name] = cell.cell_contents
            except ValueError:  # an empty cell: the variable is not assigned yet
                continue
        self.parameter_types = _parameter_types(function)
        owner = _owning_class(function, self.names)
        arguments = definition.args.posonlyargs + definition.args.args
        if owner is not None and arguments:
            self.parameter_types.setdefault(arguments[0].arg, owner)

    def resolve(self, expression: ast.expr) -> Any | None:
        if isinstance(expression, ast.Name):
            if expression.id in self.parameter_types:
                return self.parameter_types[expression.id]
            return self.names.get(expression.id, getattr(builtins, expression.id, None))
        if isinstance(expression, ast.Attribute):
            owner = self.resolve(expression.value)
            return getattr(owner, expression.attr, None) if owner is not None else None
        return None


def _own_nodes(definition: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    """Every node of the body, entering nested functions only when the body refers to them."""
    referenced = {node.id for node in ast.walk(definition) if isinstance(node, ast.Name)}
    pending: list[ast.AST] = list(definition.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.name in referenced:
                pending.extend(node.body)
            continue
        if isinstance(node, _NESTED_SCOPES):
            continue  # a lambda or a class body may never run
        yield node
        if isinstance(node, ast.Try) and _swallows_failures(node):
            # What fails in the try body is caught: only the handlers, else and finally can check.
            pending.extend([*node.handlers, *node.orelse, *node.finalbody])
            continue
        pending.extend(ast.iter_child_nodes(node))


_CATCH_ALL_FAILURES = frozenset({"AssertionError", "Exception", "BaseException"})
_CONSTANT_NODES = (
    ast.Constant, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.BinOp, ast.Tuple, ast.List, ast.Set, ast.Dict,
    ast.unaryop, ast.boolop, ast.cmpop, ast.operator, ast.expr_context,
)
_ALWAYS_TRUE_WITH_ITSELF = (ast.Eq, ast.Is, ast.LtE, ast.GtE)


def _swallows_failures(statement: ast.Try) -> bool:
    """Does one of the try's handlers catch a failed check and never raise again?"""
    for handler in statement.handlers:
        caught = handler.type
        names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
        catches = caught is None or any(_callee_name(name) in _CATCH_ALL_FAILURES for name in names if name is not None)
        reraises = any(isinstance(node, ast.Raise) for node in ast.walk(handler))
        if catches and not reraises:
            return True
    return False


def cannot_fail(test: ast.expr) -> bool:
    """An assert's test that holds whatever the code under test does."""
    if isinstance(test, ast.BoolOp):
        parts = [cannot_fail(value) for value in test.values]
        return any(parts) if isinstance(test.op, ast.Or) else all(parts)
    if isinstance(test, ast.Compare) and all(isinstance(op, _ALWAYS_TRUE_WITH_ITSELF) for op in test.ops):
        left = ast.dump(test.left)
        if all(ast.dump(right) == left for right in test.comparators):
            return True
    if all(isinstance(node, _CONSTANT_NODES) for node in ast.walk(test)) and not any(
        isinstance(node, ast.Pow) for node in ast.walk(test)
    ):
        try:
            return bool(eval(compile(ast.Expression(test), "<assert>", "eval"), {"__builtins__": {}}))
        except Exception:  # a constant that raises (1 / 0) fails every time: it is no degenerate pass
            return False
    return False


def _parse_function(function: Callable[..., object]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    try:
        source = textwrap.dedent(inspect.getsource(function))
        module = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return None
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node
    return None


def _callee_name(expression: ast.expr) -> str:
    if isinstance(expression, ast.Name):
        return expression.id
    if isinstance(expression, ast.Attribute):
        return expression.attr
    return ""


def _parameter_types(function: Callable[..., object]) -> dict[str, type]:
    """Parameters annotated with a class, evaluated one by one so one bad annotation spoils nothing."""
    annotations = getattr(function, "__annotations__", {})
    namespace = dict(getattr(function, "__globals__", {}))
    types_by_name: dict[str, type] = {}
    for name, annotation in annotations.items():
        if name == "return":
            continue
        if isinstance(annotation, str):
            try:
                annotation = eval(annotation, namespace)  # the project's own annotation, in its own module
            except Exception:
                continue
        if isinstance(annotation, type):
            types_by_name[name] = annotation
    return types_by_name


def _owning_class(function: Callable[..., object], names: dict[str, Any]) -> type | None:
    qualified = getattr(function, "__qualname__", "").split(".")
    if len(qualified) < 2 or "<locals>" in qualified:
        return None
    owner: Any = names.get(qualified[0])
    for part in qualified[1:-1]:
        owner = getattr(owner, part, None)
    return owner if isinstance(owner, type) else None


def _source_path(function: Callable[..., object]) -> Path | None:
    try:
        source = inspect.getsourcefile(function)
    except TypeError:
        return None
    return Path(source).resolve() if source else None


def definition_site(function: Callable[..., object]) -> tuple[str, int, str]:
    """(absolute source file, line of the `def`, qualified name) of a step function."""
    function = inspect.unwrap(function)
    path = _source_path(function)
    line = getattr(getattr(function, "__code__", None), "co_firstlineno", 0)
    definition = _parse_function(function)
    if definition is not None and definition.decorator_list:
        # co_firstlineno is the first decorator's line; point at the `def` itself.
        line += definition.lineno - definition.decorator_list[0].lineno
    return (str(path) if path else "", line, getattr(function, "__qualname__", repr(function)))
