"""`verity recipe validate|compile|freeze|schema`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from runtime.plan import compile_recipe, to_mermaid
from runtime.recipe.load import load_recipe_with_registry, read_recipe_source
from runtime.recipe.model import Recipe
from runtime.recipe.problems import Problem, RecipeInvalid
from runtime.recipe.schema import recipe_json_schema

EXIT_INVALID = 3


def register(commands: argparse._SubParsersAction) -> None:
    recipe = commands.add_parser("recipe", help="validate, compile and describe recipes")
    actions = recipe.add_subparsers(dest="recipe_command", metavar="ACTION")
    recipe.set_defaults(handler=lambda _args: recipe.print_help() or 2)

    validate = actions.add_parser("validate", help="check recipe files; report every problem with file:line:col")
    validate.add_argument("files", nargs="+", type=Path, metavar="FILE")
    validate.add_argument("--json", action="store_true", help="print one JSON report instead of text")
    validate.set_defaults(handler=_validate)

    compile_ = actions.add_parser("compile", help="compile a recipe into its state-machine plan")
    compile_.add_argument("file", type=Path, metavar="FILE")
    compile_.add_argument("--format", choices=("json", "mermaid"), default="json")
    compile_.set_defaults(handler=_compile)

    freeze = actions.add_parser("freeze", help="write a plain recipe from a verified run: agent steps become the steps they took")
    freeze.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="the directory of a completed, verified run")
    freeze.add_argument("-o", "--output", type=Path, metavar="FILE", help="write the recipe to FILE instead of stdout")
    freeze.set_defaults(handler=_freeze)

    schema = actions.add_parser("schema", help="print the recipe JSON Schema (for editors)")
    schema.add_argument("--write", type=Path, metavar="PATH", help="write it to PATH instead of stdout")
    schema.set_defaults(handler=_schema)


def load_for_cli(path: Path) -> tuple[Recipe, object] | list[Problem]:
    try:
        return load_recipe_with_registry(read_recipe_source(path), str(path), recipe_path=path)
    except RecipeInvalid as error:
        return error.problems


def _validate(args: argparse.Namespace) -> int:
    report = []
    for path in args.files:
        result = load_for_cli(path)
        problems = result if isinstance(result, list) else []
        report.append({"file": str(path), "valid": not problems, "problems": [p.to_dict() for p in problems]})
        if not args.json:
            if problems:
                for problem in problems:
                    print(problem)
            else:
                print(f"{path}: ok")
    ok = all(entry["valid"] for entry in report)
    if args.json:
        print(json.dumps({"valid": ok, "files": report}, indent=2, ensure_ascii=False))
    elif not ok:
        count = sum(len(entry["problems"]) for entry in report)
        print(f"{count} problem{'s' if count != 1 else ''} found", file=sys.stderr)
    return 0 if ok else EXIT_INVALID


def _compile(args: argparse.Namespace) -> int:
    result = load_for_cli(args.file)
    if isinstance(result, list):
        for problem in result:
            print(problem, file=sys.stderr)
        return EXIT_INVALID
    recipe, registry = result
    plan = compile_recipe(recipe, registry)
    sys.stdout.write(plan.to_json() if args.format == "json" else to_mermaid(plan))
    return 0


def _freeze(args: argparse.Namespace) -> int:
    from runtime.learn import FreezeRefused, freeze_run

    try:
        text = freeze_run(args.run_dir)
    except FreezeRefused as refused:
        print(f"verity recipe freeze: {refused}", file=sys.stderr)
        return EXIT_INVALID
    if args.output:
        args.output.write_text(text, encoding="utf-8")
        print(f"wrote {args.output}")
    else:
        sys.stdout.write(text)
    return 0


def _schema(args: argparse.Namespace) -> int:
    text = json.dumps(recipe_json_schema(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if args.write:
        args.write.write_text(text, encoding="utf-8")
        print(f"wrote {args.write}")
    else:
        sys.stdout.write(text)
    return 0
