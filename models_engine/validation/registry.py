"""The published cases, read from `data/*.json` into typed, immutable records.

File layout (one file per family of runs; `data/models.json` holds the model shapes the
families share):

    {"family": "...", "description": "...",
     "source": {"title": ..., "url": ..., "commit": ...},
     "models": {name: shape, ...},          # optional, extends data/models.json
     "defaults": {case fields},             # merged under every case ("layout" merged key-wise)
     "cases": [{case fields}, ...]}

A bad file raises `RegistryError` naming the file, the case id and the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .metrics import METRIC_KINDS, PublishedMetric

DATA_DIR = Path(__file__).parent / "data"
MODELS_FILE = "models.json"
ROLES = ("fit", "check")
SYSTEMS = (
    "dgx-a100",
    "dgx-h100",
    "dgx-b200",
    "dgx-b300",
    "gb200-nvl72",
    "gb300-nvl72",
    "grand-teton-h100",
    "kempner-h200",
)
REQUIRED = (
    "id",
    "role",
    "table",
    "row",
    "gpu_sku",
    "gpus",
    "system",
    "model",
    "sequence_length",
    "global_batch_sequences",
    "precision",
    "layout",
    "stack",
    "metric",
)


class RegistryError(ValueError):
    """A registry file that cannot be read as published cases."""


@dataclass(frozen=True)
class Source:
    title: str
    url: str
    commit: str | None = None
    citation: str | None = None


@dataclass(frozen=True)
class SoftwareStack:
    """The stack as the source printed it, and the engine's id for it (the closed list of
    `workload.software_stack`); `options`: what the source shows the run overriding
    (workload.software_stack fields, e.g. attention_backend)."""

    published: str
    engine: str
    options: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class Case:
    id: str
    family: str
    role: str  # "fit" or "check"
    source: Source
    table: str
    row: str
    gpu_sku: str
    gpus: int
    system: str
    model_name: str
    model: dict[str, Any]
    sequence_length: int
    global_batch_sequences: int
    precision: str
    layout: dict[str, Any]
    stack: SoftwareStack
    metric: PublishedMetric
    not_expressible: str | None = None
    notes: str = ""
    # How the run routed tokens to experts when the source says (workload.moe.routing):
    # "force_balanced" where the benchmark forced an even load; None = the model's learned
    # routing
    moe_routing: str | None = None

    @property
    def tokens_per_step(self) -> int:
        return self.global_batch_sequences * self.sequence_length

    @property
    def published_step_time_s(self) -> float:
        return self.metric.step_time_s(tokens_per_step=self.tokens_per_step, gpus=self.gpus)


def _fail(where: str, message: str) -> RegistryError:
    return RegistryError(f"{where}: {message}")


def _source(raw: Any, where: str) -> Source:
    if not isinstance(raw, dict) or not raw.get("title") or not raw.get("url"):
        raise _fail(where, "source needs a title and a url")
    return Source(**raw)


def _metric(raw: Any, where: str) -> PublishedMetric:
    if not isinstance(raw, dict) or raw.get("kind") not in METRIC_KINDS:
        raise _fail(where, f"metric.kind must be one of {list(METRIC_KINDS)}")
    try:
        return PublishedMetric(**raw)
    except TypeError as exc:
        raise _fail(where, f"metric: {exc}") from exc


def _case(raw: dict, *, family: str, source: Source, models: dict, where: str) -> Case:
    missing = [key for key in REQUIRED if key not in raw]
    if missing:
        raise _fail(where, f"missing field(s) {missing}")
    if raw["role"] not in ROLES:
        raise _fail(where, f"role must be one of {list(ROLES)}, got {raw['role']!r}")
    if raw["system"] not in SYSTEMS:
        raise _fail(where, f"system must be one of {list(SYSTEMS)}, got {raw['system']!r}")
    if raw["model"] not in models:
        raise _fail(where, f"model {raw['model']!r} is not in {MODELS_FILE} or the file's models")
    stack = raw["stack"]
    if not isinstance(stack, dict) or not stack.get("published") or not stack.get("engine"):
        raise _fail(where, "stack needs 'published' (as printed) and 'engine' (the engine's id)")
    return Case(
        id=raw["id"],
        family=family,
        role=raw["role"],
        source=source,
        table=raw["table"],
        row=raw["row"],
        gpu_sku=raw["gpu_sku"],
        gpus=int(raw["gpus"]),
        system=raw["system"],
        model_name=raw["model"],
        model=models[raw["model"]],
        sequence_length=int(raw["sequence_length"]),
        global_batch_sequences=int(raw["global_batch_sequences"]),
        precision=raw["precision"],
        layout=dict(raw["layout"]),
        stack=SoftwareStack(
            published=stack["published"],
            engine=stack["engine"],
            options=tuple(sorted((stack.get("options") or {}).items())),
        ),
        metric=_metric(raw["metric"], where),
        not_expressible=raw.get("not_expressible"),
        notes=raw.get("notes", ""),
        moe_routing=raw.get("moe_routing"),
    )


def _merged(defaults: dict, raw: dict) -> dict:
    merged = {**defaults, **raw}
    merged["layout"] = {**defaults.get("layout", {}), **raw.get("layout", {})}
    return merged


def load_family(path: Path, shared_models: dict) -> list[Case]:
    """The cases of one family file."""
    doc = json.loads(path.read_text())
    family = doc.get("family")
    if not family:
        raise _fail(path.name, "a family file needs 'family'")
    source = _source(doc.get("source"), f"{path.name}")
    models = {**shared_models, **doc.get("models", {})}
    defaults = doc.get("defaults", {})
    cases = []
    for index, raw in enumerate(doc.get("cases", [])):
        where = f"{path.name} case {raw.get('id', index)!s}"
        cases.append(
            _case(_merged(defaults, raw), family=family, source=source, models=models, where=where)
        )
    return cases


@cache
def load_registry(data_dir: Path = DATA_DIR) -> tuple[Case, ...]:
    """Every published case, in file then row order. Ids are unique across the registry."""
    shared_models = json.loads((data_dir / MODELS_FILE).read_text())
    cases: list[Case] = []
    for path in sorted(data_dir.glob("*.json")):
        if path.name != MODELS_FILE:
            cases.extend(load_family(path, shared_models))
    seen: set[str] = set()
    for case in cases:
        if case.id in seen:
            raise _fail(case.family, f"case id {case.id!r} is used twice")
        seen.add(case.id)
    return tuple(cases)
