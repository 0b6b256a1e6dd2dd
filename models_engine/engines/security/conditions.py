"""The condition language of the checks: small, declarative, evaluated here (never eval()).

A condition is a mapping, written in YAML:

    {all: [cond, ...]}            every sub-condition holds (non-empty list)
    {any: [cond, ...]}            at least one holds (non-empty list)
    {not: cond}                   the sub-condition does not hold
    {path: security.mfa, in: [privileged-only, all-users]}     a test on a spec field
    {fact: regions.residency_violations, eq: []}               a test on a derived fact

A test has exactly one of `path` / `fact` and exactly one operator:

    eq, ne        equal / not equal (booleans only equal booleans: true is not 1)
    in, not_in    member / not a member of a list
    gt, ge, lt, le  numeric comparison (false when the value is not a number, e.g. null)
    truthy        `truthy: true` holds for a non-empty / non-zero / true value,
                  `truthy: false` for the opposite

Conditions are compiled when the rules load; an unknown operator, a misspelt key or an operand
of the wrong shape is a ConditionError naming the check and the place in the condition.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

COMBINATORS = ("all", "any", "not")
OPERATORS = ("eq", "ne", "in", "not_in", "gt", "ge", "lt", "le", "truthy")
SOURCES = ("path", "fact")

# read(source, name) -> value; source is "path" or "fact".
Reader = Callable[[str, str], Any]


class ConditionError(ValueError):
    """A condition that cannot be compiled; the message names where and what is allowed."""


@dataclass(frozen=True)
class Test:
    """One comparison of a spec field or a fact with an operand."""

    source: str
    name: str
    op: str
    operand: Any

    def holds(self, read: Reader) -> bool:
        return _apply(self.op, read(self.source, self.name), self.operand)

    def refs(self) -> Iterator[Test]:
        yield self

    def failures(self, read: Reader) -> list[str]:
        return [] if self.holds(read) else [self.describe(read(self.source, self.name))]

    def describe(self, value: Any) -> str:
        label = self.name if self.source == "path" else f"fact:{self.name}"
        return f"{label} = {_show(value)} (needs {self.op} {_show(self.operand)})"


@dataclass(frozen=True)
class AllOf:
    children: tuple[Node, ...]

    def holds(self, read: Reader) -> bool:
        return all(child.holds(read) for child in self.children)

    def refs(self) -> Iterator[Test]:
        for child in self.children:
            yield from child.refs()

    def failures(self, read: Reader) -> list[str]:
        return [text for child in self.children for text in child.failures(read)]


@dataclass(frozen=True)
class AnyOf:
    children: tuple[Node, ...]

    def holds(self, read: Reader) -> bool:
        return any(child.holds(read) for child in self.children)

    def refs(self) -> Iterator[Test]:
        for child in self.children:
            yield from child.refs()

    def failures(self, read: Reader) -> list[str]:
        if self.holds(read):
            return []
        parts = [text for child in self.children for text in child.failures(read)]
        return [f"none of: {'; '.join(parts)}"]


@dataclass(frozen=True)
class Not:
    child: Node

    def holds(self, read: Reader) -> bool:
        return not self.child.holds(read)

    def refs(self) -> Iterator[Test]:
        yield from self.child.refs()

    def failures(self, read: Reader) -> list[str]:
        if self.holds(read):
            return []
        shown = ", ".join(
            f"{test.name} = {_show(read(test.source, test.name))}" for test in self.child.refs()
        )
        return [f"must not hold: {shown}"]


Node = Test | AllOf | AnyOf | Not

# Extra per-test validation supplied by the caller (e.g. "is this a real spec path?").
TestValidator = Callable[[Test, str], None]


def compile_condition(raw: Any, where: str, validate: TestValidator | None = None) -> Node:
    """Compile a condition mapping into a tree; raise ConditionError naming `where`."""
    if not isinstance(raw, dict) or not raw:
        raise ConditionError(f"{where}: a condition must be a non-empty mapping, got {_show(raw)}")
    keys = set(raw)
    unknown = keys - set(COMBINATORS) - set(OPERATORS) - set(SOURCES)
    if unknown:
        raise ConditionError(
            f"{where}: unknown operator {', '.join(repr(k) for k in sorted(map(str, unknown)))}; "
            f"allowed: combinators {', '.join(COMBINATORS)}; tests need one of "
            f"{', '.join(SOURCES)} and one of {', '.join(OPERATORS)}"
        )
    combinators = keys & set(COMBINATORS)
    if combinators:
        if len(keys) != 1:
            raise ConditionError(
                f"{where}: '{next(iter(combinators))}' must be the only key of its mapping "
                f"(got {', '.join(sorted(keys))})"
            )
        (key,) = combinators
        body = raw[key]
        if key == "not":
            return Not(compile_condition(body, f"{where}.not", validate))
        if not isinstance(body, list) or not body:
            raise ConditionError(f"{where}.{key}: needs a non-empty list of conditions")
        children = tuple(
            compile_condition(item, f"{where}.{key}[{index}]", validate)
            for index, item in enumerate(body)
        )
        return AllOf(children) if key == "all" else AnyOf(children)
    return _compile_test(raw, where, validate)


def _compile_test(raw: dict[str, Any], where: str, validate: TestValidator | None) -> Test:
    sources = [key for key in SOURCES if key in raw]
    operators = [key for key in OPERATORS if key in raw]
    if len(sources) != 1:
        raise ConditionError(f"{where}: a test needs exactly one of 'path' or 'fact'")
    if len(operators) != 1:
        raise ConditionError(
            f"{where}: a test needs exactly one operator of {', '.join(OPERATORS)} "
            f"(got {', '.join(operators) or 'none'})"
        )
    source, op = sources[0], operators[0]
    name, operand = raw[source], raw[op]
    if not isinstance(name, str) or not name:
        raise ConditionError(f"{where}.{source}: must be a non-empty string")
    if op in ("in", "not_in") and not isinstance(operand, list):
        raise ConditionError(f"{where}.{op}: needs a list, got {_show(operand)}")
    if op in ("gt", "ge", "lt", "le") and not _is_number(operand):
        raise ConditionError(f"{where}.{op}: needs a number, got {_show(operand)}")
    if op == "truthy" and not isinstance(operand, bool):
        raise ConditionError(f"{where}.truthy: needs true or false, got {_show(operand)}")
    test = Test(source=source, name=name, op=op, operand=operand)
    if validate is not None:
        validate(test, where)
    return test


def _apply(op: str, value: Any, operand: Any) -> bool:
    if op == "eq":
        return _equal(value, operand)
    if op == "ne":
        return not _equal(value, operand)
    if op == "in":
        return any(_equal(value, item) for item in operand)
    if op == "not_in":
        return not any(_equal(value, item) for item in operand)
    if op == "truthy":
        return bool(value) is operand
    if not _is_number(value):
        return False
    if op == "gt":
        return value > operand
    if op == "ge":
        return value >= operand
    if op == "lt":
        return value < operand
    if op == "le":
        return value <= operand
    raise ConditionError(f"unknown operator {op!r}")  # pragma: no cover - compile rejects it


def _equal(left: Any, right: Any) -> bool:
    # Python says True == 1; a rule that expects a boolean must not match a count.
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    return bool(left == right)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _show(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):  # pragma: no cover - facts are JSON-like
        return repr(value)
