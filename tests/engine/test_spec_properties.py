"""Property tests of the design spec.

Strategies are built from the published field list (field_docs, i.e. from the models): every
leaf's type, bounds and enum give an in-bounds value strategy and the ways to break it.
Base documents are the canonical dumps of the examples, so every leaf path exists.

- valid docs (free fields mutated in bounds, whole rule-free sections generated) round-trip
  dict -> DesignSpec -> dict unchanged with a stable hash;
- any in-bounds mutation is either valid (and round-trips) or a SpecValidationError whose
  paths are real;
- wrong types, out-of-range numbers, bad enums, unknown keys, deleted required keys and junk
  values always raise SpecValidationError with an error at the mutated path.
"""

from __future__ import annotations

import ast
import copy
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models_engine.spec import (
    SpecValidationError,
    design_json_schema,
    design_to_dict,
    field_docs,
    parse_design,
    spec_hash,
)

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples"
BASE_DOCS = [
    design_to_dict(parse_design(json.loads(path.read_text())))
    for path in sorted(EXAMPLES_DIR.glob("*.json"))
]
ROWS = [row for row in field_docs() if "object" not in row["type"]]
ROW_BY_PATH = {row["path"]: row for row in ROWS}

# Leaves that take part in a cross-field rule (or select a branch of one). Everything else is
# "free": any in-bounds value keeps an example valid.
CONSTRAINED = re.compile(
    r"^(spec_version"
    r"|workload\.(kind|layers|hidden_size|attention_heads|kv_heads|head_dim|ffn_hidden_size"
    r"|sequence_length|packed_document_tokens|global_batch_sequences|precision|moe\..*|inference\..*"
    r"|parallelism\.(tp|pp|dp|cp|ep|virtual_stages|first_stage_layers|last_stage_layers"
    r"|micro_batch_size|pipeline_schedule|shard_group_size|recompute|recompute_layer_share"
    r"|expert_tp|activation_offload_layers|pipeline_microbatches)"
    r"|software_stack\.(compiled|cross_entropy|ep_comm_overlap|fp8_recipe))"
    r"|compute\.(gpu_sku|custom_gpu\.fp8_dense_tflops|gpu_count|gpus_per_node|nvlink_domain\..*)"
    r"|fabric\.(technology|topology|tiers|nic_speed_gbps|planes|roce\.ecn_km(in|ax)_kb"
    r"|\w+_network\.(mode|nics_per_node))"
    r"|storage\.tiers\[\]\.kind"
    r"|network\.(pools\..*|tenants\[\]\.name)"
    r"|regions\.(sites\[\]\.(id|gpu_share)|wan_links\[\]\.(from|to)_site|datasets\[\]\.(name|stored_at)"
    r"|cross_region_strategy))$"
)
FREE_ROWS = [row for row in ROWS if not CONSTRAINED.match(row["path"])]
RULE_FREE_SECTIONS = ("security", "economics", "facility")

FAST = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


# --- paths --------------------------------------------------------------------------------------


def concrete_paths(doc: dict[str, Any], doc_path: str) -> list[tuple[Any, ...]]:
    """Locations in doc of a documented path such as 'regions.sites[].gpu_share'."""
    found: list[tuple[tuple[Any, ...], Any]] = [((), doc)]
    parts = doc_path.split(".")
    for depth, part in enumerate(parts):
        is_list = part.endswith("[]")
        key = part[:-2] if is_list else part
        last = depth == len(parts) - 1
        step: list[tuple[tuple[Any, ...], Any]] = []
        for loc, node in found:
            if not isinstance(node, dict) or key not in node:
                continue
            value = node[key]
            if is_list and isinstance(value, list) and not last:
                step.extend(((*loc, key, i), item) for i, item in enumerate(value))
            else:
                step.append(((*loc, key), value))
        found = step
    return [loc for loc, _ in found]


def dotted(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc)


def set_at(doc: dict[str, Any], loc: tuple[Any, ...], value: Any) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    node: Any = doc
    for part in loc[:-1]:
        node = node[part]
    node[loc[-1]] = value
    return doc


def _known_shapes() -> set[str]:
    """Every documented path, its parents, and list-item forms ('x[]')."""
    known = {""}
    for row in field_docs():
        path = row["path"]
        if "array" in row["type"]:
            known.add(f"{path}[]")
        pieces = path.split(".")
        for end in range(1, len(pieces) + 1):
            prefix = ".".join(pieces[:end])
            known.add(prefix)
            known.add(prefix.removesuffix("[]"))
    return known


KNOWN_SHAPES = _known_shapes()


def shape_of(path: str) -> str:
    """'regions.sites.1.gpu_share' -> 'regions.sites[].gpu_share'."""
    return re.sub(r"\.(\d+)(?=\.|$)", "[]", path)


def is_real_path(error: dict[str, Any]) -> bool:
    path = error["path"]
    if shape_of(path) in KNOWN_SHAPES:
        return True
    if error["message"].startswith("unknown field"):
        # The path ends in the unknown key (which may itself contain dots); its parent is real.
        cuts = [i for i, char in enumerate(path) if char == "."]
        return any(shape_of(path[:i]) in KNOWN_SHAPES for i in [0, *cuts])
    return False


def assert_good_errors(errors: list[dict[str, Any]]) -> None:
    assert errors, "a SpecValidationError carries at least one error"
    for found in errors:
        assert set(found) == {"path", "message", "allowed"}
        assert isinstance(found["path"], str) and found["message"], found
        assert not found["message"].startswith("internal"), found
        assert found["allowed"] is None or isinstance(found["allowed"], dict), found
        assert is_real_path(found), found
    json.dumps(errors)  # errors are plain data, ready for an API response


def assert_round_trip(doc: dict[str, Any]) -> None:
    spec = parse_design(doc)
    dumped = design_to_dict(spec)
    assert dumped == doc
    again = parse_design(json.loads(json.dumps(dumped)))
    assert again == spec
    assert spec_hash(again) == spec_hash(spec)
    assert design_to_dict(again) == dumped


# --- value strategies from the field list ------------------------------------------------------


def _int_range(bounds: dict[str, Any]) -> tuple[int, int]:
    low = bounds["ge"] if "ge" in bounds else bounds.get("gt", -(10**6)) + 1
    high = bounds["le"] if "le" in bounds else bounds.get("lt", 10**6) - 1
    return math.ceil(low), math.floor(min(high, low + 10**6))


def _alternatives(row: dict[str, Any]) -> list[str]:
    return row["type"].split(" | ")


def valid_value(row: dict[str, Any]) -> st.SearchStrategy[Any]:
    bounds = row["bounds"]
    options: list[st.SearchStrategy[Any]] = []
    for kind in _alternatives(row):
        if kind == "null":
            options.append(st.none())
        elif kind.startswith("'") or kind.isdigit():
            options.append(st.just(ast.literal_eval(kind)))
        elif kind == "enum":
            options.append(st.sampled_from(bounds["one_of"]))
        elif kind == "boolean":
            options.append(st.booleans())
        elif kind == "integer":
            low, high = _int_range(bounds)
            options.append(st.integers(low, high))
        elif kind == "number":
            options.append(
                st.floats(
                    min_value=bounds.get("ge", bounds.get("gt")),
                    max_value=bounds.get("le", bounds.get("lt")),
                    exclude_min="gt" in bounds,
                    exclude_max="lt" in bounds,
                    allow_nan=False,
                    allow_infinity=False,
                )
            )
        elif kind == "string":
            if "pattern" in bounds:
                options.append(st.from_regex(bounds["pattern"], fullmatch=True))
            else:
                low = bounds.get("min_length", 0)
                options.append(
                    st.text(min_size=low, max_size=min(bounds.get("max_length", 30), 30))
                )
        elif kind == "array of string":
            item = st.from_regex(bounds["item_pattern"], fullmatch=True)
            options.append(st.lists(item, min_size=bounds.get("min_items", 0), max_size=3))
        else:  # pragma: no cover - a new type in the schema needs a strategy here
            raise AssertionError(f"no strategy for {kind} ({row['path']})")
    return st.one_of(options)


def _number_beyond(bounds: dict[str, Any], integer: bool) -> st.SearchStrategy[Any]:
    """Numbers outside the bounds, of the right type."""
    options: list[st.SearchStrategy[Any]] = []
    gap = st.integers(1, 10**6) if integer else st.floats(1e-3, 1e6)
    for key, sign in (("ge", -1), ("gt", -1), ("le", 1), ("lt", 1)):
        if key not in bounds:
            continue
        edge = bounds[key]
        if key in ("gt", "lt"):
            options.append(st.just(edge))
        options.append(gap.map(lambda g, e=edge, s=sign: e + s * (abs(e) * g + g)))
    return st.one_of(options)


def _wrong_kind(row: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values of a JSON kind the field never accepts."""
    kinds = set(_alternatives(row))
    if any(kind.isdigit() for kind in kinds):
        kinds.add("integer")  # spec_version: other whole numbers are other (maybe valid) versions
    text = st.text(max_size=8).filter(lambda s: f"'{s}'" not in kinds)
    options: list[st.SearchStrategy[Any]] = [
        st.dictionaries(st.text(max_size=4), st.integers(), max_size=2)
    ]
    if "string" not in kinds and "enum" not in kinds:
        options.append(text)
    if "boolean" not in kinds:
        options.append(st.booleans())
    if not kinds & {"integer", "number", "boolean", "enum"}:
        options.append(st.integers())
    if not kinds & {"number", "enum"}:
        options.append(st.floats(allow_nan=False).filter(lambda x: not float(x).is_integer()))
    if "array of string" not in kinds:
        options.append(st.lists(st.integers(), max_size=2))
    if "null" not in kinds:
        options.append(st.none())
    return st.one_of(options)


def invalid_value(row: dict[str, Any]) -> st.SearchStrategy[Any]:
    bounds, kinds = row["bounds"], set(_alternatives(row))
    options = [_wrong_kind(row)]
    if kinds & {"integer", "number"} and {"ge", "gt", "le", "lt"} & set(bounds):
        options.append(_number_beyond(bounds, integer="number" not in kinds))
    if "enum" in kinds:
        options.append(st.text(max_size=10).filter(lambda s: s not in bounds["one_of"]))
    if "string" in kinds and "pattern" in bounds:
        options.append(
            st.sampled_from(["Not An Id!", "", " x", "UPPER", "a b"]).filter(
                lambda s: not re.fullmatch(bounds["pattern"], s)
            )
        )
    if "string" in kinds and "max_length" in bounds:
        options.append(st.just("x" * (bounds["max_length"] + 1)))
    return st.one_of(options)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def required_locations(doc: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Locations in doc of every key the JSON Schema marks required."""
    schema = design_json_schema()
    defs = schema["$defs"]
    found: list[tuple[Any, ...]] = []

    def visit(node: dict[str, Any], value: Any, loc: tuple[Any, ...]) -> None:
        while "$ref" in node:
            node = defs[node["$ref"].rsplit("/", 1)[-1]]
        for option in node.get("anyOf", []) + node.get("oneOf", []):
            visit(option, value, loc)
        if node.get("type") == "array" and isinstance(value, list):
            for index, item in enumerate(value):
                visit(node.get("items", {}), item, (*loc, index))
        if "properties" in node and isinstance(value, dict):
            found.extend((*loc, key) for key in node.get("required", []) if key in value)
            for key, prop in node["properties"].items():
                if key in value:
                    visit(prop, value[key], (*loc, key))

    visit(schema, doc, ())
    return found


# --- properties -------------------------------------------------------------------------------


def test_strategies_cover_the_schema():
    assert len(FREE_ROWS) > 80
    for row in ROWS:
        valid_value(row)
        invalid_value(row)


@FAST
@given(st.data())
def test_valid_specs_round_trip_with_a_stable_hash(data):
    doc = copy.deepcopy(data.draw(st.sampled_from(BASE_DOCS)))
    for _ in range(data.draw(st.integers(1, 6))):
        row = data.draw(st.sampled_from(FREE_ROWS))
        locations = concrete_paths(doc, row["path"])
        if locations:
            doc = set_at(doc, data.draw(st.sampled_from(locations)), data.draw(valid_value(row)))
    assert_round_trip(doc)


@FAST
@given(st.data())
def test_generated_rule_free_sections_are_valid(data):
    base = copy.deepcopy(data.draw(st.sampled_from(BASE_DOCS)))
    section = data.draw(st.sampled_from(RULE_FREE_SECTIONS))
    # List items are generated with their lists elsewhere; here only plain leaves.
    leaves = [
        row for row in ROWS if row["path"].startswith(f"{section}.") and "[]" not in row["path"]
    ]
    chosen = data.draw(st.lists(st.sampled_from(leaves), unique_by=lambda r: r["path"]))
    generated: dict[str, Any] = {}
    for row in chosen:
        node = generated
        *parents, last = row["path"].split(".")[1:]
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = data.draw(valid_value(row))
    base[section] = generated  # omitted keys take their defaults
    spec = parse_design(base)
    dumped = design_to_dict(spec)
    for row in chosen:
        (location,) = concrete_paths(dumped, row["path"])
        expected = generated
        for key in location[1:]:
            expected = expected[key]
        actual: Any = dumped
        for key in location:
            actual = actual[key]
        assert actual == expected
    assert_round_trip(dumped)


@FAST
@given(st.data())
def test_any_in_bounds_mutation_is_valid_or_a_clean_spec_error(data):
    doc = copy.deepcopy(data.draw(st.sampled_from(BASE_DOCS)))
    for _ in range(data.draw(st.integers(1, 4))):
        row = data.draw(st.sampled_from(ROWS))
        locations = concrete_paths(doc, row["path"])
        if locations:
            doc = set_at(doc, data.draw(st.sampled_from(locations)), data.draw(valid_value(row)))
    try:
        parse_design(doc)
    except SpecValidationError as exc:
        assert_good_errors(exc.errors)
    else:
        assert_round_trip(doc)


def _expect_error_at(doc: Any, path: str) -> None:
    with pytest.raises(SpecValidationError) as info:
        parse_design(doc)
    errors = info.value.errors
    assert_good_errors(errors)
    assert any(e["path"] == path for e in errors), (path, errors)


@FAST
@given(st.data())
def test_invalid_leaf_values_always_fail_at_their_path(data):
    doc = data.draw(st.sampled_from(BASE_DOCS))
    row = data.draw(st.sampled_from(ROWS))
    locations = concrete_paths(doc, row["path"])
    if not locations:
        return
    location = data.draw(st.sampled_from(locations))
    _expect_error_at(set_at(doc, location, data.draw(invalid_value(row))), dotted(location))


@FAST
@given(st.data())
def test_unknown_keys_always_fail_at_their_path(data):
    doc = data.draw(st.sampled_from(BASE_DOCS))
    objects: list[tuple[Any, ...]] = [()]

    def collect(node: Any, loc: tuple[Any, ...]) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            if isinstance(value, dict):
                objects.append((*loc, key))
            if isinstance(value, dict | list):
                collect(value, (*loc, key))

    collect(doc, ())
    location = data.draw(st.sampled_from(objects))
    key = data.draw(st.from_regex(r"[a-z_]{1,12}", fullmatch=True))
    parent: Any = doc
    for part in location:
        parent = parent[part]
    if key in parent:
        return
    mutated = copy.deepcopy(doc)
    target: Any = mutated
    for part in location:
        target = target[part]
    target[key] = data.draw(json_values)
    _expect_error_at(mutated, dotted((*location, key)))


@FAST
@given(st.data())
def test_deleted_required_keys_always_fail_at_their_path(data):
    doc = data.draw(st.sampled_from(BASE_DOCS))
    location = data.draw(st.sampled_from(required_locations(doc)))
    mutated = copy.deepcopy(doc)
    parent: Any = mutated
    for part in location[:-1]:
        parent = parent[part]
    del parent[location[-1]]
    _expect_error_at(mutated, dotted(location))


@FAST
@given(json_values.filter(lambda v: not isinstance(v, dict)))
def test_junk_top_level_values_fail_at_the_root(junk):
    _expect_error_at(junk, "")


@FAST
@given(st.data())
def test_arbitrary_subtree_replacement_never_escapes(data):
    """Any JSON value anywhere: valid, or a SpecValidationError with real paths."""
    doc = data.draw(st.sampled_from(BASE_DOCS))
    row = data.draw(st.sampled_from(field_docs()))
    locations = concrete_paths(doc, row["path"]) or [()]
    location = data.draw(st.sampled_from(locations))
    junk = data.draw(json_values | st.dictionaries(st.text(max_size=8), json_values, max_size=5))
    mutated = set_at(doc, location, junk) if location else junk
    try:
        parse_design(mutated)
    except SpecValidationError as exc:
        assert_good_errors(exc.errors)
