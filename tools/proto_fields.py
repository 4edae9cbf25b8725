"""Guard the wire contract: a field or enum number, once published, is never reused.

    uv run python tools/proto_fields.py --check   # exit 1 on a breaking change
    uv run python tools/proto_fields.py --write   # record new fields in proto/verity/v1/fields.lock.json

The lock keeps every (type, name, number) ever published. A name that is gone from the protos
must have its number and its name in a `reserved` statement of that type; a number may never come
back under another name. Like `buf breaking`, but with only protoc (grpc_tools) and this file.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from importlib import resources
from pathlib import Path

from google.protobuf import descriptor_pb2
from grpc_tools import protoc

REPO_ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = REPO_ROOT / "proto"
LOCK = PROTO_ROOT / "verity" / "v1" / "fields.lock.json"

Numbers = dict[str, dict[str, int]]  # type name -> field or value name -> number


def descriptor_set(proto_root: Path) -> descriptor_pb2.FileDescriptorSet:
    files = sorted(str(p.relative_to(proto_root)) for p in proto_root.rglob("*.proto"))
    well_known = str(resources.files("grpc_tools") / "_proto")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "set.pb"
        status = protoc.main(["protoc", f"-I{proto_root}", f"-I{well_known}", f"--descriptor_set_out={out}", *files])
        if status != 0:
            raise SystemExit(f"proto_fields: protoc failed ({status}) on {proto_root}")
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def _walk(prefix: str, messages, enums, numbers: Numbers, reserved: dict[str, tuple[set[int], set[str]]]) -> None:
    for enum in enums:
        name = f"{prefix}.{enum.name}"
        numbers[name] = {value.name: value.number for value in enum.value}
        reserved[name] = ({n for r in enum.reserved_range for n in range(r.start, r.end + 1)}, set(enum.reserved_name))
    for message in messages:
        name = f"{prefix}.{message.name}"
        numbers[name] = {field.name: field.number for field in message.field}
        # Message reserved ranges are end-exclusive; enum reserved ranges are end-inclusive.
        reserved[name] = ({n for r in message.reserved_range for n in range(r.start, r.end)}, set(message.reserved_name))
        _walk(name, message.nested_type, message.enum_type, numbers, reserved)


def published(fds: descriptor_pb2.FileDescriptorSet) -> tuple[Numbers, dict[str, tuple[set[int], set[str]]]]:
    numbers: Numbers = {}
    reserved: dict[str, tuple[set[int], set[str]]] = {}
    for file in fds.file:
        _walk(file.package, file.message_type, file.enum_type, numbers, reserved)
    return numbers, reserved


def breaking_changes(lock: Numbers, fds: descriptor_pb2.FileDescriptorSet) -> list[str]:
    numbers, reserved = published(fds)
    problems = []
    for type_name, fields in sorted(lock.items()):
        if type_name not in numbers:
            problems.append(f"{type_name}: removed; published types stay (deprecate them instead)")
            continue
        now = numbers[type_name]
        reserved_numbers, reserved_names = reserved[type_name]
        by_number = {number: name for name, number in now.items()}
        for name, number in sorted(fields.items(), key=lambda kv: kv[1]):
            if name in now and now[name] != number:
                problems.append(f"{type_name}.{name}: renumbered from {number} to {now[name]}")
            elif name not in now:
                if number in by_number:
                    problems.append(f"{type_name}: number {number} of removed {name!r} is reused by {by_number[number]!r}")
                elif number not in reserved_numbers or name not in reserved_names:
                    problems.append(f"{type_name}.{name} ({number}) was removed without `reserved {number};` and `reserved \"{name}\";`")
            elif by_number.get(number) != name:
                problems.append(f"{type_name}: number {number} now names {by_number.get(number)!r}, was {name!r}")
    return problems


def read_lock(path: Path = LOCK) -> Numbers:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def merged_lock(lock: Numbers, fds: descriptor_pb2.FileDescriptorSet) -> Numbers:
    """The lock plus every field published now; nothing is ever dropped from it."""
    numbers, _ = published(fds)
    merged = {type_name: dict(fields) for type_name, fields in lock.items()}
    for type_name, fields in numbers.items():
        merged.setdefault(type_name, {}).update(fields)
    return {type_name: dict(sorted(fields.items(), key=lambda kv: kv[1])) for type_name, fields in sorted(merged.items())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="fail on breaking changes or fields missing from the lock")
    mode.add_argument("--write", action="store_true", help="record newly published fields in the lock")
    args = parser.parse_args(argv)
    fds = descriptor_set(PROTO_ROOT)
    lock = read_lock()
    problems = breaking_changes(lock, fds)
    if problems:
        print("proto_fields: breaking changes to the published protos:", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    merged = merged_lock(lock, fds)
    if args.write:
        LOCK.write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")
        print(f"proto_fields: wrote {LOCK.relative_to(REPO_ROOT)}")
        return 0
    if merged != lock:
        print("proto_fields: new fields are not in the lock; run `uv run python tools/proto_fields.py --write`", file=sys.stderr)
        return 1
    print("proto_fields: no breaking changes; the lock is current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
