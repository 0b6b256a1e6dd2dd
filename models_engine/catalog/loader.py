"""The hardware catalog: built-in entries from data/*.yaml, lookup, team entries, JSON export."""

import dataclasses
import difflib
import functools
from collections.abc import Iterable, Iterator, Mapping
from importlib import resources
from types import MappingProxyType
from typing import Any

import yaml
from pydantic import ConfigDict, ValidationError, create_model

from models_engine.catalog.compute import CloudPrice, GpuSku, SystemSku
from models_engine.catalog.facility import CoolingType, FailureRate, Region, StorageSku
from models_engine.catalog.models import ENTRY_MODELS, CatalogEntry
from models_engine.catalog.network import NicSku, OpticSku, SwitchSku

KINDS: tuple[str, ...] = tuple(ENTRY_MODELS)
_SINGULAR = {
    "gpu": "gpus",
    "system": "systems",
    "switch": "switches",
    "nic": "nics",
    "optic": "optics",
    "cooling_type": "cooling",
    "region": "regions",
    "cloud_price": "cloud_prices",
    "failure_rate": "failure_rates",
}


class CatalogError(Exception):
    """Base class of catalog errors."""


class CatalogLookupError(CatalogError, LookupError):
    """An unknown kind or id; the message names the allowed ones."""

    def __init__(self, kind: str, entry_id: str, allowed: Iterable[str]) -> None:
        self.kind = kind
        self.id = entry_id
        self.allowed = tuple(allowed)
        what = "catalog kind" if kind == "kind" else f"{kind} id"
        close = difflib.get_close_matches(entry_id, self.allowed, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        super().__init__(f"unknown {what} {entry_id!r}{hint}; allowed: {', '.join(self.allowed)}")

    def __str__(self) -> str:  # LookupError would quote the message like a KeyError
        return str(self.args[0])


class CatalogConflictError(CatalogError, ValueError):
    """Duplicate ids, a clash with a built-in entry, or a reference to a missing entry."""


def normalize_kind(kind: str) -> str:
    """'gpus' or 'gpu' -> 'gpus'; anything else raises CatalogLookupError."""
    key = kind.strip().lower().replace("-", "_")
    key = _SINGULAR.get(key, key)
    if key not in ENTRY_MODELS:
        raise CatalogLookupError("kind", kind, KINDS)
    return key


def _validate(kind: str, raw: Mapping[str, Any] | CatalogEntry) -> CatalogEntry:
    model = ENTRY_MODELS[kind]
    return raw if isinstance(raw, model) else model.model_validate(raw)


def _by_id(kind: str, entries: Iterable[CatalogEntry]) -> dict[str, CatalogEntry]:
    out: dict[str, CatalogEntry] = {}
    for entry in entries:
        if entry.id in out:
            raise CatalogConflictError(f"duplicate {kind} id {entry.id!r}")
        out[entry.id] = entry
    return out


@dataclasses.dataclass(frozen=True)
class Catalog:
    """Read-only catalog; each attribute maps id -> entry."""

    gpus: Mapping[str, GpuSku]
    systems: Mapping[str, SystemSku]
    switches: Mapping[str, SwitchSku]
    nics: Mapping[str, NicSku]
    optics: Mapping[str, OpticSku]
    storage: Mapping[str, StorageSku]
    cooling: Mapping[str, CoolingType]
    regions: Mapping[str, Region]
    cloud_prices: Mapping[str, CloudPrice]
    failure_rates: Mapping[str, FailureRate]

    def __post_init__(self) -> None:
        for kind in KINDS:
            entries = getattr(self, kind)
            for entry_id, entry in entries.items():
                if not isinstance(entry, ENTRY_MODELS[kind]) or entry.id != entry_id:
                    raise CatalogConflictError(f"{kind}[{entry_id!r}] is not a matching entry")
            object.__setattr__(self, kind, MappingProxyType(dict(entries)))
        self._check_references()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Catalog):
            return NotImplemented
        return all(dict(getattr(self, k)) == dict(getattr(other, k)) for k in KINDS)

    __hash__ = None  # type: ignore[assignment]

    def _check_references(self) -> None:
        missing = []
        for system in self.systems.values():
            if system.gpu_id not in self.gpus:
                missing.append(f"systems[{system.id!r}].gpu_id={system.gpu_id!r}")
            if system.scale_out_nic_id is not None and system.scale_out_nic_id not in self.nics:
                missing.append(
                    f"systems[{system.id!r}].scale_out_nic_id={system.scale_out_nic_id!r}"
                )
        for price in self.cloud_prices.values():
            if price.gpu_id not in self.gpus:
                missing.append(f"cloud_prices[{price.id!r}].gpu_id={price.gpu_id!r}")
        if missing:
            raise CatalogConflictError("references to missing entries: " + "; ".join(missing))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Catalog":
        """Build from {kind: {id: entry}} (as `as_dict` gives) or {kind: [entry, ...]}."""
        unknown = sorted(set(data) - set(KINDS))
        if unknown:
            raise CatalogLookupError("kind", unknown[0], KINDS)
        fields = {}
        for kind in KINDS:
            raw = data.get(kind) or []
            items = raw.values() if isinstance(raw, Mapping) else raw
            fields[kind] = _by_id(kind, (_validate(kind, item) for item in items))
        return cls(**fields)

    def get(self, kind: str, entry_id: str) -> CatalogEntry:
        """The entry of `kind` with `entry_id`; CatalogLookupError names the allowed ids."""
        key = normalize_kind(kind)
        entries = getattr(self, key)
        try:
            return entries[entry_id]
        except (KeyError, TypeError):
            raise CatalogLookupError(key, str(entry_id), sorted(entries)) from None

    def ids(self, kind: str) -> tuple[str, ...]:
        """Sorted ids of one kind."""
        return tuple(sorted(getattr(self, normalize_kind(kind))))

    def iter_entries(self) -> Iterator[tuple[str, CatalogEntry]]:
        """Every (kind, entry) pair."""
        for kind in KINDS:
            for entry in getattr(self, kind).values():
                yield kind, entry

    def with_entries(
        self,
        kind: str,
        entries: Iterable[Mapping[str, Any] | CatalogEntry],
        *,
        override: bool = False,
    ) -> "Catalog":
        """A new catalog with team/custom entries added (validated by the same models).

        An id that is already in the catalog is an error unless `override=True`.
        """
        key = normalize_kind(kind)
        added = _by_id(key, (_validate(key, item) for item in entries))
        current = getattr(self, key)
        clashes = sorted(set(added) & set(current))
        if clashes and not override:
            raise CatalogConflictError(
                f"{key} id(s) {', '.join(map(repr, clashes))} already in the catalog;"
                " choose another id or pass override=True"
            )
        merged = {**current, **added}
        return dataclasses.replace(self, **{key: merged})

    def as_dict(self) -> dict[str, dict[str, dict[str, Any]]]:
        """JSON-ready {kind: {id: entry fields}}."""
        return {
            kind: {eid: entry.model_dump(mode="json") for eid, entry in getattr(self, kind).items()}
            for kind in KINDS
        }


def _read_kind(kind: str) -> list[CatalogEntry]:
    resource = resources.files("models_engine.catalog").joinpath("data", f"{kind}.yaml")
    raw = yaml.safe_load(resource.read_text(encoding="utf-8")) or []
    if not isinstance(raw, list):
        raise CatalogError(f"data/{kind}.yaml must hold a list of entries")
    entries = []
    for index, item in enumerate(raw):
        try:
            entries.append(_validate(kind, item))
        except ValidationError as exc:
            label = item.get("id", f"#{index}") if isinstance(item, dict) else f"#{index}"
            raise CatalogError(f"data/{kind}.yaml entry {label}: {exc}") from exc
    return entries


@functools.lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    """The built-in catalog (read once, cached; the result is read-only)."""
    return Catalog(**{kind: _by_id(kind, _read_kind(kind)) for kind in KINDS})


def catalog_json_schema() -> dict[str, Any]:
    """JSON Schema of a catalog document {kind: {id: entry}} with every entry model in $defs."""
    document = create_model(  # type: ignore[call-overload]
        "CatalogDocument",
        __config__=ConfigDict(extra="forbid", title="Cluster Studio hardware catalog"),
        **{kind: (dict[str, model], {}) for kind, model in ENTRY_MODELS.items()},
    )
    return document.model_json_schema()
