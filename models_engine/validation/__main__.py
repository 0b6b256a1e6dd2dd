"""`python -m models_engine.validation [--json] [--family NAME] [--cases]`: per family of
published runs, the fitted and the check-only step-time errors (see __init__.py)."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter

from .panel import validation_table
from .registry import load_registry
from .runner import ErrorStats, GroupSummary, ValidationReport, run_validation


def _pct(value: float | None) -> str:
    return "    -" if value is None else f"{value:5.1%}"


def _signed_pct(value: float | None) -> str:
    return "     -" if value is None else f"{value:+6.1%}"


def _stats(stats: ErrorStats, *, bias: bool = False) -> str:
    text = f"{stats.n:3d} {_pct(stats.median)} {_pct(stats.p90)} {_pct(stats.max)}"
    return f"{text} {_signed_pct(stats.bias)}" if bias else text


def _row(group: GroupSummary) -> str:
    return (
        f"{group.name:32s} {group.cases:4d} {group.not_expressible:4d}   "
        f"{_stats(group.fitted)}   {_stats(group.check, bias=True)}"
    )


def print_table(report: ValidationReport, *, cases: bool) -> None:
    print("Step time |error| against published runs (model / published - 1)")
    print(f"{'':32s} {'':4s} {'not':>4s}   {'fitted':^21s}   {'check-only':^28s}")
    header = "  n median   p90   max"
    print(f"{'family':32s} {'runs':>4s} {'expr':>4s}   {header}   {header}   bias")
    for group in report.families:
        print(_row(group))
    print(_row(report.overall))
    for group in report.by_model_class:
        print(_row(group))
    print(
        f"check-only sources: {report.check_sources} registered, "
        f"{report.check_sources_scored} with a scored case"
    )
    print_not_expressible(report)
    if cases:
        print_cases(report)


def reason_kind(reason: str) -> str:
    """The field a reason names, without the case's own numbers: 'spec rejects it:
    workload.precision', 'spec has no workload.software_stack', ..."""
    first = reason.split(";")[0]
    parts = first.split(": ")
    if first.startswith("spec rejects it") and len(parts) > 1:
        return f"{parts[0]}: {parts[1]}"
    return parts[0] if len(parts[0]) <= 72 else parts[0][:69] + "..."


def print_not_expressible(report: ValidationReport) -> None:
    counts = Counter(reason_kind(r.not_expressible) for r in report.results if r.not_expressible)
    if counts:
        print("\nnot expressible yet (first reason; --cases lists every case):")
        for reason, count in counts.most_common():
            print(f"{count:5d}  {reason}")


def print_cases(report: ValidationReport) -> None:
    print(f"\n{'case':44s} {'role':5s} {'published s':>11s} {'model s':>9s} {'error':>7s}")
    for r in report.results:
        if r.not_expressible:
            print(
                f"{r.id:44s} {r.role:5s} {r.published_step_time_s:11.3f}   not expressible: "
                f"{r.not_expressible}"
            )
            continue
        flags = " (does not fit in memory)" if r.memory_fits is False else ""
        note = f"  [{r.note}]" if r.note else ""
        print(
            f"{r.id:44s} {r.role:5s} {r.published_step_time_s:11.3f} "
            f"{r.model_step_time_s:9.3f} {r.error:+7.1%}{flags}{note}"
        )


def print_panel(*, as_json: bool) -> int:
    table = validation_table()
    if as_json:
        json.dump(table.as_dict(), sys.stdout, indent=1)
        print()
        return 0
    print("|error| per engine and quantity (engine / published - 1)")
    print(f"{'group':48s} {'refs':>4s}   {'fitted':^21s}   {'check-only, bias':^28s}")
    for group in (*table.by_engine, *table.by_model_class, *table.by_family, table.overall):
        print(
            f"{group.name:48s} {group.references:4d}   {_stats(group.fitted)}   "
            f"{_stats(group.check, bias=True)}"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models_engine.validation")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--family", action="append", help="only this family (repeatable)")
    parser.add_argument("--cases", action="store_true", help="also list every case")
    parser.add_argument(
        "--panel",
        action="store_true",
        help="every engine's published references (the studio's validation page)",
    )
    args = parser.parse_args(argv)
    if args.panel:
        return print_panel(as_json=args.json)
    cases = load_registry()
    if args.family:
        known = {c.family for c in cases}
        unknown = sorted(set(args.family) - known)
        if unknown:
            print(f"error: --family {unknown} not in {sorted(known)}", file=sys.stderr)
            return 2
        cases = tuple(c for c in cases if c.family in args.family)
    report = run_validation(cases)
    if args.json:
        json.dump(report.as_dict(), sys.stdout, indent=1)
        print()
    else:
        print_table(report, cases=args.cases)
    return 0


if __name__ == "__main__":
    sys.exit(main())
