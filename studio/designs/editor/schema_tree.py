"""Walk the spec's JSON Schema into a tree of editor nodes (objects, lists, choices, leaves).

Only the schema decides what the editor shows: a field added to the spec appears in the editor
with its unit, bounds and default without touching this module.
"""

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from models_engine import design_json_schema

# Sections shown as editor tabs, in the order architects think about a cluster.
SECTIONS = [
    "workload",
    "compute",
    "fabric",
    "network",
    "storage",
    "facility",
    "physical",
    "regions",
    "security",
    "economics",
]


@dataclass
class Leaf:
    key: str
    title: str
    kind: str  # integer | number | boolean | enum | string | string-list | keyword-or-<kind>
    description: str = ""
    unit: str = ""
    default: Any = None
    nullable: bool = False
    choices: list[str] = field(default_factory=list)
    choice_values: list = field(default_factory=list)  # the typed values behind `choices`
    keyword: str | None = None  # the literal alternative of keyword-or-number fields
    bounds: dict = field(default_factory=dict)


@dataclass
class Group:
    key: str
    title: str
    description: str = ""
    children: list = field(default_factory=list)
    optional: bool = False  # the whole object may be null (e.g. workload.moe)
    default: Any = None


@dataclass
class Choice:
    """'auto' | object: a mode switch in front of an object."""

    key: str
    title: str
    keyword: str
    group: Group
    description: str = ""
    default: Any = None


@dataclass
class ListOf:
    key: str
    title: str
    item: Group
    description: str = ""
    default: Any = None
    min_items: int = 0
    max_items: int | None = None


def _resolve(schema: dict, root: dict) -> dict:
    ref = schema.get("$ref")
    return root["$defs"][ref.rsplit("/", 1)[-1]] if ref else schema


def _bounds(schema: dict) -> dict:
    names = {"minimum": "ge", "maximum": "le", "exclusiveMinimum": "gt", "exclusiveMaximum": "lt"}
    return {short: schema[long] for long, short in names.items() if long in schema}


ACRONYMS = {
    "gpu": "GPU",
    "gpus": "GPUs",
    "sku": "SKU",
    "nic": "NIC",
    "nics": "NICs",
    "hbm": "HBM",
    "bf16": "BF16",
    "fp8": "FP8",
    "nvlink": "NVLink",
    "tp": "TP",
    "pp": "PP",
    "dp": "DP",
    "cp": "CP",
    "ep": "EP",
    "ffn": "FFN",
    "moe": "MoE",
    "fsdp": "FSDP",
    "mtp": "MTP",
    "mla": "MLA",
    "qk": "QK",
    "lora": "LoRA",
    "pue": "PUE",
    "wue": "WUE",
    "wan": "WAN",
    "rtt": "RTT",
    "ec": "EC",
    "ram": "RAM",
    "cpu": "CPU",
    "kv": "KV",
    "ecn": "ECN",
    "pfc": "PFC",
    "slo": "SLO",
    "rdma": "RDMA",
    "mfa": "MFA",
    "rbac": "RBAC",
    "sbom": "SBOM",
    "siem": "SIEM",
    "roce": "RoCE",
    "id": "ID",
    "tdp": "TDP",
    "asn": "ASN",
    "ecmp": "ECMP",
    "bfd": "BFD",
    "bgp": "BGP",
    "gtsm": "GTSM",
    "mtu": "MTU",
    "p2p": "point-to-point",
}
# A label stops at its first unit word: the unit is shown beside it, from the schema.
UNIT_WORDS = {
    "gbps",
    "tbytes",
    "gbytes",
    "usd",
    "kwh",
    "kw",
    "w",
    "tb",
    "gib",
    "gb",
    "ms",
    "min",
    "l",
    "gco2e",
    "kb",
    "tflops",
    "pct",
}


def _title(key: str, schema: dict) -> str:
    words = key.split("_")
    cut = next((i for i, w in enumerate(words) if i > 0 and w in UNIT_WORDS), len(words))
    words = words[:cut]
    label = " ".join(ACRONYMS.get(w, w) for w in words)
    return label[:1].upper() + label[1:] if label else schema.get("title", key)


def _leaf_kind(schema: dict) -> tuple[str, list]:
    if "enum" in schema:
        return "enum", list(schema["enum"])
    if "const" in schema:
        return "enum", [schema["const"]]
    kind = schema.get("type", "string")
    if kind == "array":
        return "string-list", []
    return kind, []


def _node(key: str, schema: dict, root: dict):
    meta = schema
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if alternatives:
        non_null = [a for a in alternatives if a.get("type") != "null"]
        nullable = len(non_null) < len(alternatives)
        consts = [a["const"] for a in non_null if "const" in a]
        others = [a for a in non_null if "const" not in a]
        if len(non_null) == 1:
            inner = _resolve(non_null[0], root)
            if inner.get("type") == "object" or "properties" in inner:
                group = _group(key, inner, root, meta)
                group.optional = nullable
                return group
            return _make_leaf(key, {**inner, **_strip(meta)}, nullable=nullable)
        if consts and others:
            other = _resolve(others[0], root)
            if "properties" in other:
                return Choice(
                    key=key,
                    title=_title(key, meta),
                    keyword=str(consts[0]),
                    group=_group(key, other, root, {}),
                    description=meta.get("description", ""),
                    default=meta.get("default"),
                )
            leaf = _make_leaf(key, {**other, **_strip(meta)}, nullable=nullable)
            leaf.keyword = str(consts[0])
            leaf.kind = f"keyword-or-{leaf.kind}"
            return leaf
        return _make_leaf(key, {**non_null[0], **_strip(meta)}, nullable=nullable)
    resolved = _resolve(schema, root)
    if "properties" in resolved:
        return _group(key, resolved, root, meta)
    if resolved.get("type") == "array" and "$ref" in resolved.get("items", {}):
        item = _group(key, _resolve(resolved["items"], root), root, {})
        return ListOf(
            key=key,
            title=_title(key, meta),
            item=item,
            description=meta.get("description", ""),
            default=meta.get("default"),
            min_items=resolved.get("minItems", 0),
            max_items=resolved.get("maxItems"),
        )
    return _make_leaf(key, {**resolved, **_strip(meta)})


def _strip(meta: dict) -> dict:
    return {k: v for k, v in meta.items() if k not in ("anyOf", "oneOf", "$ref", "type")}


def _make_leaf(key: str, schema: dict, nullable: bool = False) -> Leaf:
    kind, values = _leaf_kind(schema)
    return Leaf(
        key=key,
        title=_title(key, schema),
        kind=kind,
        choices=[str(v) for v in values],
        choice_values=values,
        description=schema.get("description", ""),
        unit=schema.get("unit", ""),
        default=schema.get("default"),
        nullable=nullable,
        bounds=_bounds(schema),
    )


def _group(key: str, schema: dict, root: dict, meta: dict) -> Group:
    children = [_node(name, sub, root) for name, sub in schema.get("properties", {}).items()]
    return Group(
        key=key,
        title=_title(key, meta or schema),
        description=meta.get("description", "") or schema.get("description", ""),
        children=children,
        default=meta.get("default"),
    )


@lru_cache(maxsize=1)
def spec_tree() -> Group:
    schema = design_json_schema()
    return _group("", schema, schema, {})


def section(name: str):
    return next(child for child in spec_tree().children if child.key == name)


def header_leaves() -> list[Leaf]:
    """Top-level scalar fields (name, description) shown above the sections."""
    return [
        c for c in spec_tree().children if isinstance(c, Leaf) and c.key not in ("spec_version",)
    ]
