"""Command line: `python -m models_engine evaluate DESIGN.json` and `... schema`."""

import argparse
import json
import sys
from pathlib import Path

from models_engine.pipeline import evaluate
from models_engine.spec import SpecValidationError, design_json_schema


def _cmd_evaluate(args: argparse.Namespace) -> int:
    try:
        doc = json.loads(Path(args.design).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        print(f"error: cannot read {args.design}: {exc}", file=sys.stderr)
        return 2
    try:
        results = evaluate(doc)
    except SpecValidationError as exc:
        for error in exc.errors:
            print(f"error: {error['path'] or '(spec)'}: {error['message']}", file=sys.stderr)
        return 1
    json.dump(results, sys.stdout, indent=2 if args.pretty else None, sort_keys=False)
    print()
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
    schema = commands.add_parser("schema", help="print the JSON Schema of the design spec")
    schema.set_defaults(handler=_cmd_schema)
    args = parser.parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
