"""Command line: `python -m models_engine evaluate DESIGN.json`, `... validate DESIGN.json` and
`... schema`. Both commands that read a design go through the one validation entry point,
`models_engine.validate.validate_design` (`evaluate` calls it first)."""

import argparse
import json
import sys
from pathlib import Path

from models_engine.pipeline import evaluate
from models_engine.spec import SpecValidationError, design_json_schema
from models_engine.validate import validate_design


def _read(path: str) -> dict | None:
    try:
        return json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        print(f"error: cannot read {path}: {exc}", file=sys.stderr)
        return None


def _print_errors(exc: SpecValidationError) -> int:
    for error in exc.errors:
        print(f"error: {error['path'] or '(spec)'}: {error['message']}", file=sys.stderr)
    return 1


def _cmd_evaluate(args: argparse.Namespace) -> int:
    doc = _read(args.design)
    if doc is None:
        return 2
    try:
        results = evaluate(doc)  # validate_design first, then the engines
    except SpecValidationError as exc:
        return _print_errors(exc)
    json.dump(results, sys.stdout, indent=2 if args.pretty else None, sort_keys=False)
    print()
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    doc = _read(args.design)
    if doc is None:
        return 2
    try:
        design = validate_design(doc)
    except SpecValidationError as exc:
        return _print_errors(exc)
    compute = design.spec.compute
    print(f"ok: {compute.gpu_count} x {design.gpu.name}, {len(design.spec.regions.sites)} site(s)")
    return 0


def _cmd_schema(_args: argparse.Namespace) -> int:
    json.dump(design_json_schema(), sys.stdout, indent=2)
    print()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models_engine")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("evaluate", help="evaluate a design spec (JSON) and print results")
    run.add_argument("design", help="path to a design JSON file")
    run.add_argument("--compact", dest="pretty", action="store_false", help="one-line JSON")
    run.set_defaults(handler=_cmd_evaluate)
    check = commands.add_parser("validate", help="check a design spec (JSON) without evaluating")
    check.add_argument("design", help="path to a design JSON file")
    check.set_defaults(handler=_cmd_validate)
    schema = commands.add_parser("schema", help="print the JSON Schema of the design spec")
    schema.set_defaults(handler=_cmd_schema)
    args = parser.parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
