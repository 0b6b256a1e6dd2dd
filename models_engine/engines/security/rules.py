"""The rule set: check records (checks/*.yaml), framework mappings (mappings/*.yaml) and the
scoring parameters (ruleset.yaml), loaded and validated once.

Everything a reviewer may dispute is data. Loading fails with a RulesError that names the
file and the check when a record is malformed, a condition uses an unknown operator, a path
is not in the spec, a fact is not defined in facts.py, or a mapping names an unknown check.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .conditions import ConditionError, Node, Test, compile_condition
from .facts import FACTS
from .spec_paths import UnknownPathError, field_annotation, literal_choices

Severity = Literal["critical", "high", "medium", "low", "info"]
SEVERITIES: tuple[str, ...] = ("critical", "high", "medium", "low", "info")
CHECK_ID_PATTERN = r"^CS-[A-Z]{2,4}-\d{3}$"


class RulesError(ValueError):
    """The rule data is invalid; the message names the file, the check and the problem."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Reference(_Record):
    title: str = Field(min_length=1)
    url: str = Field(pattern=r"^https?://")


class Remediation(_Record):
    text: str = Field(min_length=1)
    references: list[Reference] = Field(min_length=1)


class Evidence(_Record):
    paths: list[str] = []
    facts: list[str] = []


class Examples(_Record):
    """Spec patches ({dotted.path: value}) applied to an example design (`base`, a file in
    examples/) that make the check PASS / FAIL, or for manual checks be MANUAL /
    NOT_APPLICABLE. The tests apply every one of them. The key `_base` inside one patch
    names a different example design for that patch only."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, populate_by_name=True)

    base: str = "h100-256-onprem-starter"
    passing: dict[str, Any] | None = Field(None, alias="pass")
    failing: dict[str, Any] | None = Field(None, alias="fail")
    manual: dict[str, Any] | None = None
    not_applicable: dict[str, Any] | None = None


class CheckRecord(_Record):
    id: str = Field(pattern=CHECK_ID_PATTERN)
    title: str = Field(min_length=1)
    category: str
    severity: Severity
    mode: Literal["automated", "manual"]
    applies_when: dict[str, Any] | None = None
    evidence: Evidence = Evidence()
    condition: dict[str, Any] | None = None
    risk: str = Field(min_length=1)
    remediation: Remediation
    examples: Examples
    since: str = Field(min_length=1)

    @model_validator(mode="after")
    def _check_mode(self) -> CheckRecord:
        if self.mode == "automated":
            if self.condition is None:
                raise ValueError("an automated check needs a condition")
            if self.examples.passing is None or self.examples.failing is None:
                raise ValueError("an automated check needs examples.pass and examples.fail")
        else:
            if self.condition is not None:
                raise ValueError("a manual check has no condition (a human attests it)")
            if self.examples.manual is None:
                raise ValueError("a manual check needs examples.manual")
            if self.applies_when is not None and self.examples.not_applicable is None:
                raise ValueError("a manual check with applies_when needs examples.not_applicable")
        return self


class CheckFile(_Record):
    version: int = Field(ge=1)
    checks: list[CheckRecord] = Field(min_length=1)


class Requirement(_Record):
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    checks: list[str] = Field(min_length=1)
    techniques: list[str] = []


class Technique(_Record):
    id: str = Field(pattern=r"^AML\.T\d{4}(\.\d{3})?$")
    name: str = Field(min_length=1)
    checks: list[str] = []


class FrameworkMapping(_Record):
    id: str = Field(pattern=r"^[a-z0-9_]+$")
    framework: str = Field(min_length=1)
    version: str = Field(min_length=1)
    source: str = Field(min_length=1)
    notes: str = ""
    requirements: list[Requirement] = Field(min_length=1)
    # MITRE ATLAS only: techniques a check defends against directly, beyond its mitigations.
    techniques: list[Technique] = []


class Category(_Record):
    id: str = Field(pattern=r"^[a-z0-9-]+$")
    title: str = Field(min_length=1)
    ai_specific: bool = False


class Grade(_Record):
    grade: str = Field(pattern=r"^[A-F]$")
    min_pct: float = Field(ge=0, le=100)


class Manifest(_Record):
    rules_version: str = Field(pattern=r"^\d+\.\d+\.\d+$")
    severity_weights: dict[Severity, int]
    grades: list[Grade] = Field(min_length=2)
    critical_fail_cap: str = Field(pattern=r"^[A-F]$")
    frameworks: list[str] = Field(min_length=1)
    categories: list[Category] = Field(min_length=1)


@dataclass(frozen=True)
class CompiledCheck:
    """A check record with its conditions compiled."""

    record: CheckRecord
    applies_when: Node | None
    condition: Node | None


@dataclass(frozen=True)
class RuleSet:
    """Everything the evaluator needs: parameters, checks in report order, mappings."""

    manifest: Manifest
    checks: tuple[CompiledCheck, ...]
    mappings: tuple[FrameworkMapping, ...]

    @property
    def version(self) -> str:
        return self.manifest.rules_version


@functools.cache
def load_rules() -> RuleSet:
    """The built-in rule set (cached; the data files are part of the package)."""
    root = resources.files(__package__)
    manifest_doc = _load_yaml(root.joinpath("ruleset.yaml"), "ruleset.yaml")
    check_docs = {
        f"checks/{item.name}": _load_yaml(item, f"checks/{item.name}")
        for item in sorted(root.joinpath("checks").iterdir(), key=lambda entry: entry.name)
        if item.name.endswith(".yaml")
    }
    mapping_docs = {
        f"mappings/{item.name}": _load_yaml(item, f"mappings/{item.name}")
        for item in sorted(root.joinpath("mappings").iterdir(), key=lambda entry: entry.name)
        if item.name.endswith(".yaml")
    }
    return build_rules(manifest_doc, check_docs, mapping_docs)


def build_rules(
    manifest_doc: Any, check_docs: dict[str, Any], mapping_docs: dict[str, Any]
) -> RuleSet:
    """Validate and compile rule data given as parsed YAML documents keyed by file name."""
    manifest = _validated(Manifest, manifest_doc, "ruleset.yaml")
    missing = [s for s in SEVERITIES if s not in manifest.severity_weights]
    if missing:
        raise RulesError(f"ruleset.yaml: severity_weights lacks {', '.join(missing)}")
    categories = {category.id for category in manifest.categories}
    checks: list[CompiledCheck] = []
    seen: dict[str, str] = {}
    for file_name, doc in check_docs.items():
        check_file = _validated(CheckFile, doc, file_name)
        for record in check_file.checks:
            where = f"{file_name}: {record.id}"
            if record.id in seen:
                raise RulesError(f"{where}: duplicate check id (also in {seen[record.id]})")
            seen[record.id] = file_name
            if record.category not in categories:
                raise RulesError(
                    f"{where}: unknown category '{record.category}'; "
                    f"allowed: {', '.join(sorted(categories))}"
                )
            checks.append(_compile(record, where))
    # Report order: categories as listed in ruleset.yaml, then check id.
    order = [category.id for category in manifest.categories]
    checks.sort(key=lambda check: (order.index(check.record.category), check.record.id))
    loaded = {
        file_name: _validated(FrameworkMapping, doc, file_name)
        for file_name, doc in mapping_docs.items()
    }
    for file_name, mapping in loaded.items():
        if file_name != f"mappings/{mapping.id}.yaml":
            raise RulesError(f"{file_name}: id '{mapping.id}' must match the file name")
    by_id = {mapping.id: (file_name, mapping) for file_name, mapping in loaded.items()}
    if sorted(by_id) != sorted(manifest.frameworks) or len(by_id) != len(loaded):
        raise RulesError(
            f"ruleset.yaml: frameworks {manifest.frameworks} must name each mapping file's id "
            f"exactly once (mapping files: {sorted(by_id)})"
        )
    known = set(seen)
    for file_name, mapping in (by_id[framework_id] for framework_id in manifest.frameworks):
        listed = [c for r in mapping.requirements for c in r.checks]
        listed += [c for t in mapping.techniques for c in t.checks]
        unknown = sorted(set(listed) - known)
        if unknown:
            raise RulesError(f"{file_name}: unknown check ids {', '.join(unknown)}")
        declared = {technique.id for technique in mapping.techniques}
        undeclared = sorted({t for r in mapping.requirements for t in r.techniques} - declared)
        if undeclared:
            raise RulesError(
                f"{file_name}: techniques {', '.join(undeclared)} are not declared under "
                "'techniques'"
            )
    mappings = tuple(by_id[framework_id][1] for framework_id in manifest.frameworks)
    return RuleSet(manifest=manifest, checks=tuple(checks), mappings=mappings)


def _compile(record: CheckRecord, where: str) -> CompiledCheck:
    for path in record.evidence.paths:
        try:
            field_annotation(path)
        except UnknownPathError as exc:
            raise RulesError(f"{where}: evidence: {exc}") from None
    for name in record.evidence.facts:
        if name not in FACTS:
            raise RulesError(
                f"{where}: evidence: unknown fact '{name}'; allowed: {', '.join(FACTS)}"
            )

    def validate(test: Test, at: str) -> None:
        _validate_test(test, at, record)

    try:
        applies = (
            compile_condition(record.applies_when, f"{where}: applies_when", validate)
            if record.applies_when is not None
            else None
        )
        condition = (
            compile_condition(record.condition, f"{where}: condition", validate)
            if record.condition is not None
            else None
        )
    except ConditionError as exc:
        raise RulesError(str(exc)) from None
    return CompiledCheck(record=record, applies_when=applies, condition=condition)


def _validate_test(test: Test, where: str, record: CheckRecord) -> None:
    """A test may only read what the check declares as evidence, and its operand must be a
    value the field can take (catches 'fully_segmented' for 'fully-segmented')."""
    if test.source == "fact":
        if test.name not in FACTS:
            raise ConditionError(
                f"{where}: unknown fact '{test.name}'; allowed: {', '.join(FACTS)}"
            )
        if test.name not in record.evidence.facts:
            raise ConditionError(f"{where}: fact '{test.name}' is not listed in evidence.facts")
        kind = FACTS[test.name].kind
        if kind.startswith("bool") and test.op in ("eq", "ne") and not _is_bool_or_none(test):
            raise ConditionError(f"{where}: fact '{test.name}' is {kind}; compare with a boolean")
        return
    try:
        annotation = field_annotation(test.name)
    except UnknownPathError as exc:
        raise ConditionError(f"{where}: {exc}") from None
    if test.name not in record.evidence.paths:
        raise ConditionError(f"{where}: path '{test.name}' is not listed in evidence.paths")
    choices = literal_choices(annotation)
    operands = test.operand if test.op in ("in", "not_in") else [test.operand]
    if choices is not None and test.op in ("eq", "ne", "in", "not_in"):
        bad = [value for value in operands if value not in choices]
        if bad:
            raise ConditionError(
                f"{where}: {test.name} cannot be {', '.join(map(repr, bad))}; "
                f"allowed: {', '.join(map(repr, choices))}"
            )
    if (
        annotation is bool
        and test.op in ("eq", "ne", "in", "not_in")
        and not all(isinstance(value, bool) for value in operands)
    ):
        raise ConditionError(f"{where}: {test.name} is a boolean; compare with true/false")


def _is_bool_or_none(test: Test) -> bool:
    return test.operand is None or isinstance(test.operand, bool)


def _validated(model: type[BaseModel], doc: Any, file_name: str) -> Any:
    try:
        return model.model_validate(doc)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or '(file)'}: {error['msg']}"
            for error in exc.errors()
        )
        raise RulesError(f"{file_name}: {problems}") from None


def _load_yaml(entry: Any, file_name: str) -> Any:
    try:
        return yaml.safe_load(entry.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise RulesError(f"{file_name}: not valid YAML: {exc}") from None
