"""Design spec: defaults, examples, every cross-field rule, error shape, migration, schema."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import ValidationError

from models_engine.spec import (
    SPEC_VERSION,
    DesignSpec,
    SpecValidationError,
    design_json_schema,
    design_to_dict,
    field_docs,
    migrate,
    parse_design,
    reference_errors,
    spec_hash,
)

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples"
EXAMPLE_FILES = sorted(EXAMPLES_DIR.glob("*.json"))
REQUIRED_EXAMPLES = {
    "h100-256-onprem-starter",
    "dgx-h100-superpod-4su",
    "gb200-nvl72-multirack",
    "llama3-16k-h100-roce",
    "two-region-hierarchical",
    "inference-fleet",
}

SMALL_MODEL = {
    "layers": 32,
    "hidden_size": 4096,
    "attention_heads": 32,
    "kv_heads": 8,
    "ffn_hidden_size": 14336,
}
MINIMAL = {"compute": {"gpu_sku": "h100-sxm-80gb", "gpu_count": 256}, "workload": SMALL_MODEL}


def load_example(stem: str) -> dict[str, Any]:
    return json.loads((EXAMPLES_DIR / f"{stem}.json").read_text())


def errors_of(doc: Any) -> list[dict[str, Any]]:
    with pytest.raises(SpecValidationError) as info:
        parse_design(doc)
    return info.value.errors


def error_at(doc: Any, path: str) -> dict[str, Any]:
    errors = errors_of(doc)
    matching = [e for e in errors if e["path"] == path]
    assert matching, f"no error at {path!r}; got {errors}"
    return matching[0]


def with_changes(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """Deep copy of base with dotted-path changes: with_changes(d, **{"compute.gpu_count": 8})."""
    doc = copy.deepcopy(base)
    for path, value in changes.items():
        *parents, last = path.split(".")
        node: Any = doc
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node.setdefault(key, {})
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return doc


def explicit(**parallelism: Any) -> dict[str, Any]:
    """MINIMAL with an explicit layout (256 GPUs)."""
    layout = {"tp": 8, "pp": 1, "dp": 32, "cp": 1, **parallelism}
    return with_changes(MINIMAL, **{"workload.parallelism": layout})


# --- defaults and examples ------------------------------------------------------------------


def test_minimal_spec_is_valid_with_every_other_section_defaulted():
    spec = parse_design(MINIMAL)
    assert spec.spec_version == SPEC_VERSION == 1
    assert spec.compute.gpus_per_node == 8
    assert spec.compute.nvlink_domain.gpus == 8
    assert spec.fabric.switch_sku == "nvidia-qm9700"
    assert spec.workload.parallelism == "auto"
    assert spec.regions.sites[0].gpu_share == 1.0
    assert spec.storage.checkpoint.interval_min == "auto"
    assert design_to_dict(spec)["spec_version"] == 1


def test_defaults_follow_the_chosen_technology_and_domain_kind():
    doc = with_changes(
        MINIMAL,
        **{
            "fabric.technology": "infiniband-xdr",
            "compute.gpu_sku": "gb200-nvl72",
            "compute.gpu_count": 576,
            "compute.nvlink_domain": {"kind": "nvl72"},
        },
    )
    spec = parse_design(doc)
    assert (spec.fabric.switch_sku, spec.fabric.nic_sku, spec.fabric.nic_speed_gbps) == (
        "nvidia-q3400",
        "cx8-xdr-800g",
        800,
    )
    assert spec.compute.nvlink_domain.gpus == 72
    assert spec.compute.gpus_per_node == 4


def test_at_least_the_six_named_examples_exist():
    assert {path.stem for path in EXAMPLE_FILES} >= REQUIRED_EXAMPLES


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_every_example_parses_and_round_trips(path: Path):
    doc = json.loads(path.read_text())
    spec = parse_design(doc)
    assert len(spec.description) > 80, "examples explain themselves"
    dumped = design_to_dict(spec)
    assert parse_design(dumped) == spec
    assert design_to_dict(parse_design(dumped)) == dumped
    assert spec_hash(parse_design(json.loads(json.dumps(dumped)))) == spec_hash(spec)


def test_llama3_405b_example_matches_the_published_model():
    spec = parse_design(load_example("llama3-16k-h100-roce"))
    work = spec.workload
    assert (work.layers, work.hidden_size, work.attention_heads, work.kv_heads) == (
        126,
        16384,
        128,
        8,
    )
    assert (work.ffn_hidden_size, work.vocab_size, work.sequence_length) == (53248, 128256, 8192)
    # The paper's interleaved TP8 x PP16 x DP128 schedule is not expressible with Megatron's
    # uneven-split rules, so the example lets the engine search (see its description).
    assert work.parallelism == "auto" and spec.compute.gpu_count == 16384
    assert work.tokens_to_train == 15.6e12


def test_superpod_example_is_127_dgx_h100():
    spec = parse_design(load_example("dgx-h100-superpod-4su"))
    assert spec.compute.gpu_count == 1016
    assert spec.compute.gpu_count // spec.compute.gpus_per_node == 127
    assert spec.fabric.switch_sku == "nvidia-qm9700"


def test_eu_resident_dataset_at_a_us_site_is_a_finding_not_an_error():
    doc = load_example("two-region-hierarchical")
    doc["regions"]["datasets"][0]["stored_at"] = ["ashburn"]  # EU-only data in the US
    spec = parse_design(doc)
    assert spec.regions.datasets[0].residency == ["EU"]


# --- cross-field rules: each names its path and says what is allowed --------------------------

RULE_CASES = [
    (
        "gpu_count-not-multiple-of-node",
        with_changes(MINIMAL, **{"compute.gpu_count": 250}),
        "compute.gpu_count",
        "multiple of gpus_per_node",
    ),
    (
        "tp-larger-than-nvlink-domain",
        with_changes(explicit(tp=16, dp=16), **{"workload.kv_heads": 16}),
        "workload.parallelism.tp",
        "NVLink domain",
    ),
    (
        "product-not-gpu-count",
        explicit(dp=16),
        "workload.parallelism",
        "must equal compute.gpu_count (256)",
    ),
    (
        "product-not-gpu-count-names-the-fix",
        explicit(dp=16),
        "workload.parallelism",
        'set workload.parallelism.dp to 32, or set workload.parallelism to "auto"',
    ),
    (
        "heads-not-divisible-by-tp",
        with_changes(explicit(tp=8), **{"workload.attention_heads": 36, "workload.kv_heads": 4}),
        "workload.parallelism.tp",
        "must divide attention_heads (36)",
    ),
    (
        "kv-heads-not-dividing-heads",
        with_changes(MINIMAL, **{"workload.kv_heads": 5}),
        "workload.kv_heads",
        "must divide attention_heads",
    ),
    (
        "tp-not-dividing-kv-heads-in-training",
        with_changes(explicit(tp=8), **{"workload.kv_heads": 4}),
        "workload.parallelism.tp",
        "must divide kv_heads",
    ),
    (
        "layers-not-divisible-by-pp-times-v",
        explicit(tp=8, pp=4, dp=8, virtual_stages=3),
        "workload.parallelism.pp",
        "pp x virtual_stages",
    ),
    (
        "uneven-split-does-not-add-up",
        explicit(tp=8, pp=4, dp=8, first_stage_layers=7, last_stage_layers=6),
        "workload.parallelism.pp",
        "must split evenly",
    ),
    (
        "interleave-without-pipeline",
        explicit(virtual_stages=2),
        "workload.parallelism.virtual_stages",
        "needs pp > 1",
    ),
    (
        "ep-without-moe",
        explicit(ep=2),
        "workload.parallelism.ep",
        "needs an MoE model",
    ),
    (
        "cp-not-dividing-sequence",
        with_changes(explicit(cp=2, dp=16), **{"workload.sequence_length": 4098}),
        "workload.parallelism.cp",
        "multiple of 2 x cp",
    ),
    (
        "global-batch-not-multiple-of-dp",
        with_changes(explicit(), **{"workload.global_batch_sequences": 100}),
        "workload.global_batch_sequences",
        "multiple of micro_batch_size x dp",
    ),
    (
        "gpu-share-sum",
        with_changes(
            MINIMAL,
            **{
                "regions.sites": [
                    {
                        **load_example("two-region-hierarchical")["regions"]["sites"][0],
                        "gpu_share": 0.9,
                    }
                ]
            },
        ),
        "regions.sites",
        "sum to 1",
    ),
    (
        "nvl72-with-8-gpu-nodes",
        with_changes(
            MINIMAL,
            **{
                "compute.gpu_count": 576,
                "compute.gpus_per_node": 8,
                "compute.nvlink_domain": {"kind": "nvl72"},
            },
        ),
        "compute.gpus_per_node",
        "4-GPU compute trays",
    ),
    (
        "nvl72-of-the-wrong-size",
        with_changes(
            MINIMAL,
            **{"compute.gpu_count": 576, "compute.nvlink_domain": {"kind": "nvl72", "gpus": 64}},
        ),
        "compute.nvlink_domain.gpus",
        "has 72 GPUs",
    ),
    (
        "nvl72-racks-bought-whole",
        with_changes(
            MINIMAL, **{"compute.gpu_count": 256, "compute.nvlink_domain": {"kind": "nvl72"}}
        ),
        "compute.gpu_count",
        "multiple of nvlink_domain.gpus (72)",
    ),
    (
        "hgx-domain-of-wrong-size",
        with_changes(MINIMAL, **{"compute.nvlink_domain": {"kind": "hgx-nvswitch-8", "gpus": 4}}),
        "compute.nvlink_domain.gpus",
        "has 8 GPUs",
    ),
    (
        "both-gpu-sku-and-custom-gpu",
        with_changes(
            MINIMAL,
            **{
                "compute.custom_gpu": load_example("l40s-custom-gpu-finetune")["compute"][
                    "custom_gpu"
                ]
            },
        ),
        "compute.gpu_sku",
        "exactly one of gpu_sku",
    ),
    (
        "neither-gpu-sku-nor-custom-gpu",
        with_changes(MINIMAL, **{"compute.gpu_sku": None}),
        "compute.gpu_sku",
        "exactly one of gpu_sku",
    ),
    (
        "nic-faster-than-technology",
        with_changes(MINIMAL, **{"fabric.technology": "roce-400g", "fabric.nic_speed_gbps": 800}),
        "fabric.nic_speed_gbps",
        "at most 400 Gb/s",
    ),
    (
        "ecn-thresholds-inverted",
        with_changes(MINIMAL, **{"fabric.roce": {"ecn_kmin_kb": 2000, "ecn_kmax_kb": 1000}}),
        "fabric.roce.ecn_kmin_kb",
        "must not exceed ecn_kmax_kb",
    ),
    (
        "separate-network-without-nics",
        with_changes(
            MINIMAL, **{"fabric.frontend_network": {"mode": "separate", "nics_per_node": 0}}
        ),
        "fabric.frontend_network.nics_per_node",
        "at least one NIC",
    ),
    (
        "inference-kind-without-targets",
        with_changes(MINIMAL, **{"workload.kind": "inference"}),
        "workload.inference",
        "required when kind is 'inference'",
    ),
    (
        "inference-context-overflow",
        with_changes(
            MINIMAL,
            **{
                "workload.kind": "inference",
                "workload.inference": {
                    "target_tokens_per_s": 1000,
                    "prompt_tokens": 4000,
                    "output_tokens": 500,
                },
            },
        ),
        "workload.inference.output_tokens",
        "must fit in sequence_length",
    ),
    (
        "fp8-on-a-gpu-without-fp8",
        with_changes(
            load_example("l40s-custom-gpu-finetune"),
            **{"workload.precision": "fp8", "compute.custom_gpu.fp8_dense_tflops": None},
        ),
        "workload.precision",
        "fp8 needs",
    ),
    (
        "moe-top-k-above-experts",
        with_changes(
            MINIMAL, **{"workload.moe": {"experts": 4, "top_k": 8, "expert_ffn_hidden_size": 1024}}
        ),
        "workload.moe.top_k",
        "cannot exceed experts",
    ),
    (
        "two-local-nvme-tiers",
        with_changes(
            MINIMAL,
            **{
                "storage.tiers": [
                    {
                        "kind": "local-nvme",
                        "capacity_tb": 1,
                        "read_gbytes_per_s": 1,
                        "write_gbytes_per_s": 1,
                    }
                ]
                * 2
            },
        ),
        "storage.tiers.1.kind",
        "only one local-nvme tier",
    ),
]


@pytest.mark.parametrize(
    ("doc", "path", "fragment"), [case[1:] for case in RULE_CASES], ids=[c[0] for c in RULE_CASES]
)
def test_cross_field_rule_names_the_field(doc, path, fragment):
    errors = errors_of(doc)
    messages = [e["message"] for e in errors if e["path"] == path]
    assert any(fragment in m for m in messages), errors


def test_product_rule_suggests_the_data_parallel_size():
    assert error_at(explicit(dp=16), "workload.parallelism")["allowed"] == {"dp": 32}


def test_tp_rule_lists_the_allowed_sizes():
    doc = with_changes(explicit(tp=16, dp=16), **{"workload.kv_heads": 16})
    assert error_at(doc, "workload.parallelism.tp")["allowed"] == {"le": 8}


def test_ep_must_divide_dp_for_an_moe_model():
    moe = {"experts": 64, "top_k": 2, "expert_ffn_hidden_size": 1408}
    doc = with_changes(explicit(dp=32, ep=3), **{"workload.moe": moe})
    messages = [e["message"] for e in errors_of(doc) if e["path"] == "workload.parallelism.ep"]
    assert any("must divide dp (32)" in m for m in messages)
    assert any("must divide moe.experts (64)" in m for m in messages)
    assert parse_design(with_changes(explicit(dp=32, ep=8), **{"workload.moe": moe}))


def test_uneven_pipeline_split_accepts_the_llama3_layout():
    doc = with_changes(
        MINIMAL,
        **{
            "workload.layers": 126,
            "compute.gpu_count": 16384,
            "workload.parallelism": {
                "tp": 8,
                "pp": 16,
                "dp": 128,
                "first_stage_layers": 7,
                "last_stage_layers": 7,
            },
        },
    )
    assert parse_design(doc).workload.parallelism.pp == 16


def test_wan_link_to_an_unknown_site_and_a_self_loop():
    doc = load_example("two-region-hierarchical")
    doc["regions"]["wan_links"].append(
        {"from_site": "hamina", "to_site": "tokyo", "bandwidth_gbps": 100, "rtt_ms": 250}
    )
    doc["regions"]["wan_links"].append(
        {"from_site": "hamina", "to_site": "hamina", "bandwidth_gbps": 100, "rtt_ms": 1}
    )
    unknown = error_at(doc, "regions.wan_links.1.to_site")
    assert "unknown site 'tokyo'" in unknown["message"]
    assert unknown["allowed"] == {"one_of": ["ashburn", "hamina"]}
    assert "two different sites" in error_at(doc, "regions.wan_links.2.to_site")["message"]


def test_dataset_at_an_unknown_site_and_duplicate_ids():
    doc = load_example("two-region-hierarchical")
    doc["regions"]["datasets"][1]["stored_at"] = ["ashburn", "paris"]
    doc["regions"]["sites"][1]["id"] = "ashburn"
    doc["regions"]["wan_links"] = []
    assert "unknown site 'paris'" in error_at(doc, "regions.datasets.1.stored_at.1")["message"]
    assert "duplicate site id" in error_at(doc, "regions.sites.1.id")["message"]


def test_site_share_must_give_whole_nodes():
    doc = load_example("two-region-hierarchical")
    doc["regions"]["sites"][0]["gpu_share"] = 0.3
    doc["regions"]["sites"][1]["gpu_share"] = 0.7
    assert "whole units of 8 GPUs" in error_at(doc, "regions.sites.0.gpu_share")["message"]


def test_cross_region_strategy_needs_two_gpu_sites():
    doc = with_changes(MINIMAL, **{"regions.cross_region_strategy": "hierarchical"})
    assert error_at(doc, "regions.cross_region_strategy")["allowed"] == {"one_of": ["none"]}


def test_all_rule_violations_are_reported_together():
    doc = with_changes(explicit(tp=16, pp=3, dp=16), **{"workload.kv_heads": 5})
    paths = {e["path"] for e in errors_of(doc)}
    assert {"workload.kv_heads", "workload.parallelism.tp", "workload.parallelism.pp"} <= paths


# --- error shape for structural problems -------------------------------------------------------


def test_error_dicts_have_path_message_allowed():
    for found in errors_of(with_changes(MINIMAL, **{"compute.gpu_count": 0})):
        assert set(found) == {"path", "message", "allowed"}


def test_out_of_range_names_the_bounds():
    found = error_at(with_changes(MINIMAL, **{"compute.gpu_count": 0}), "compute.gpu_count")
    assert found["allowed"] == {"ge": 1, "le": 10_000_000}
    assert "at least 1" in found["message"]


def test_list_index_appears_in_the_path():
    doc = load_example("two-region-hierarchical")
    doc["regions"]["sites"][1]["gpu_share"] = 1.5
    found = error_at(doc, "regions.sites.1.gpu_share")
    assert found["allowed"] == {"ge": 0, "le": 1}


def test_unknown_key_lists_the_allowed_fields():
    found = error_at(with_changes(MINIMAL, **{"compute.gpus": 8}), "compute.gpus")
    assert "unknown field 'gpus'" in found["message"]
    assert "gpu_count" in found["allowed"]["fields"]


def test_bad_enum_lists_the_choices():
    found = error_at(with_changes(MINIMAL, **{"fabric.topology": "torus"}), "fabric.topology")
    assert found["allowed"] == {"one_of": ["rail-optimized", "leaf-spine", "fat-tree-3tier"]}


def test_auto_or_object_field_says_both_choices():
    found = error_at(
        with_changes(MINIMAL, **{"workload.parallelism": "manual"}), "workload.parallelism"
    )
    assert "'auto'" in found["message"] and "object" in found["message"]
    found = error_at(
        with_changes(MINIMAL, **{"storage.checkpoint.interval_min": -5}),
        "storage.checkpoint.interval_min",
    )
    assert found["allowed"] == {"gt": 0, "le": 10080}


def test_missing_required_field():
    doc = copy.deepcopy(MINIMAL)
    del doc["compute"]["gpu_count"]
    assert error_at(doc, "compute.gpu_count")["message"] == "required field is missing"
    assert error_at({"compute": MINIMAL["compute"]}, "workload")


def test_strings_are_not_numbers_and_numbers_are_not_booleans():
    assert error_at(with_changes(MINIMAL, **{"compute.gpu_count": "256"}), "compute.gpu_count")
    assert error_at(with_changes(MINIMAL, **{"compute.gpu_count": 256.0}), "compute.gpu_count")
    assert error_at(with_changes(MINIMAL, **{"workload.gated_mlp": 1}), "workload.gated_mlp")
    assert error_at(with_changes(MINIMAL, **{"compute.gpu_count": True}), "compute.gpu_count")
    nan = with_changes(MINIMAL, **{"economics.utilisation": float("nan")})
    assert error_at(nan, "economics.utilisation")


@pytest.mark.parametrize(
    ("path", "value", "allowed"),
    [
        ("fabric.planes", 2.0, [1, 2, 4, 8]),
        ("fabric.planes", True, [1, 2, 4, 8]),
        ("fabric.nic_speed_gbps", 400.0, [25, 50, 100, 200, 400, 800, 1600]),
        ("physical.rack_height_u", False, [42, 45, 47, 48, 52]),
    ],
)
def test_numeric_choices_take_whole_numbers_only(path, value, allowed):
    # pydantic compares Literal members by equality (2.0 == 2, True == 1); the stored
    # revision must hold exactly the integer the schema lists.
    found = error_at(with_changes(MINIMAL, **{path: value}), path)
    assert found["allowed"] == {"one_of": allowed}
    whole = int(allowed[1])
    assert parse_design(with_changes(MINIMAL, **{path: whole}))


@pytest.mark.parametrize("junk", [None, 3, "design", [MINIMAL], 2.5, True])
def test_junk_top_level_is_a_root_error(junk):
    assert errors_of(junk) == [
        {"path": "", "message": "a design must be a JSON object", "allowed": {"type": "object"}}
    ]


@pytest.mark.parametrize(
    ("version", "fragment"), [(2, "newer"), (-1, "too old"), ("1", "whole number"), (True, "whole")]
)
def test_unknown_spec_version(version, fragment):
    found = error_at({**MINIMAL, "spec_version": version}, "spec_version")
    assert fragment in found["message"]


def test_no_raw_pydantic_error_escapes():
    with pytest.raises(SpecValidationError) as info:
        parse_design({"compute": 1, "workload": []})
    assert not isinstance(info.value, ValidationError)
    assert isinstance(info.value, ValueError)
    assert "compute" in str(info.value)


def test_spec_is_immutable():
    spec = parse_design(MINIMAL)
    with pytest.raises(ValidationError):
        spec.compute.gpu_count = 8  # type: ignore[misc]


# --- migration ------------------------------------------------------------------------------

V0_DOC = {
    "spec_version": 0,
    "name": "prototype design",
    "workload": SMALL_MODEL,
    "compute": {"gpu": "h100-sxm-80gb", "num_gpus": 64, "nvlink_domain_size": 8},
    "fabric": {"technology": "roce-400g", "oversubscription": 2.0},
    "regions": [
        {
            "id": "fra",
            "name": "Frankfurt",
            "gpu_share": 1.0,
            "power_price_usd_per_kwh": 0.2,
            "carbon_gco2e_per_kwh": 615,
            "jurisdiction": "EU",
        }
    ],
    "economics": {"utilization": 0.6},
}


def test_v0_document_migrates_to_v1():
    migrated = migrate(V0_DOC)
    assert migrated["spec_version"] == 1
    assert migrated["compute"] == {
        "gpu_sku": "h100-sxm-80gb",
        "gpu_count": 64,
        "nvlink_domain": {"kind": "hgx-nvswitch-8", "gpus": 8},
    }
    assert migrated["fabric"]["oversubscription"] == {"leaf": 2.0, "spine": 1.0}
    assert migrated["regions"] == {"sites": V0_DOC["regions"]}
    assert migrated["economics"] == {"utilisation": 0.6}
    assert V0_DOC["compute"]["gpu"] == "h100-sxm-80gb", "input is not modified"


def test_v0_document_parses_like_its_v1_equivalent():
    v1 = {
        "name": "prototype design",
        "workload": SMALL_MODEL,
        "compute": {
            "gpu_sku": "h100-sxm-80gb",
            "gpu_count": 64,
            "nvlink_domain": {"kind": "hgx-nvswitch-8"},
        },
        "fabric": {"technology": "roce-400g", "oversubscription": {"leaf": 2.0}},
        "regions": {"sites": V0_DOC["regions"]},
        "economics": {"utilisation": 0.6},
    }
    assert spec_hash(parse_design(V0_DOC)) == spec_hash(parse_design(v1))


def test_v0_nvl72_domain_size_maps_to_the_nvl72_kind():
    doc = with_changes(
        V0_DOC,
        **{"compute.num_gpus": 144, "compute.nvlink_domain_size": 72, "compute.gpu": "gb200-nvl72"},
    )
    spec = parse_design(doc)
    assert spec.compute.nvlink_domain.kind == "nvl72"
    assert spec.compute.gpus_per_node == 4


def test_v0_with_both_old_and_new_names_reports_the_old_one():
    doc = with_changes(V0_DOC, **{"compute.gpu_sku": "h200-sxm-141gb"})
    assert "unknown field 'gpu'" in error_at(doc, "compute.gpu")["message"]


def test_current_document_is_not_changed_by_migrate():
    doc = load_example("h100-256-onprem-starter")
    assert migrate(doc) == doc


# --- serialisation and hash ---------------------------------------------------------------------


def test_hash_ignores_key_order_and_spelling_of_defaults():
    spec = parse_design(MINIMAL)
    reordered = {
        "workload": dict(reversed(list(SMALL_MODEL.items()))),
        "compute": MINIMAL["compute"],
    }
    assert spec_hash(parse_design(reordered)) == spec_hash(spec)
    assert spec_hash(parse_design(design_to_dict(spec))) == spec_hash(spec)
    assert len(spec_hash(spec)) == 64


def test_hash_changes_with_any_value():
    base = spec_hash(parse_design(MINIMAL))
    changed = spec_hash(parse_design(with_changes(MINIMAL, **{"economics.utilisation": 0.74})))
    assert changed != base


def test_negative_zero_hashes_like_zero():
    zero = with_changes(MINIMAL, **{"economics.discount_rate": 0.0})
    negative = with_changes(MINIMAL, **{"economics.discount_rate": -0.0})
    assert spec_hash(parse_design(zero)) == spec_hash(parse_design(negative))


# --- JSON Schema and field docs ---------------------------------------------------------------


def test_json_schema_is_draft_2020_12_with_title_and_description():
    schema = design_json_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["title"].startswith("Cluster Studio design spec")
    assert schema["description"]
    assert set(schema["required"]) == {"workload", "compute"}
    json.dumps(schema)  # plain JSON


def leaf_rows() -> list[dict[str, Any]]:
    return [row for row in field_docs() if "object" not in row["type"]]


def test_every_leaf_field_has_a_description_and_a_unit():
    rows = leaf_rows()
    assert len(rows) > 120
    missing = [r["path"] for r in rows if not r["description"] or not r["unit"]]
    assert missing == []


def test_every_numeric_leaf_has_bounds():
    numeric = [r for r in leaf_rows() if "integer" in r["type"] or "number" in r["type"]]
    unbounded = [r["path"] for r in numeric if not r["bounds"]]
    assert unbounded == []
    upper = [r["path"] for r in numeric if not {"le", "lt"} & set(r["bounds"])]
    assert upper == [], "every number has an upper bound (no 10**30 GPUs)"


def test_field_docs_carry_section_specific_defaults():
    rows = {row["path"]: row for row in field_docs()}
    assert rows["fabric.storage_network.nic_speed_gbps"]["default"] == 400
    assert rows["fabric.frontend_network.nic_speed_gbps"]["default"] == 200
    assert rows["compute.gpu_count"]["default"] is None  # required
    assert rows["workload.parallelism"]["default"] == "auto"
    assert rows["regions.sites[].gpu_share"]["unit"] == "fraction (0-1)"
    assert len(rows) == len(field_docs()), "paths are unique"


def test_units_are_in_names_or_descriptions():
    for row in leaf_rows():
        assert row["unit"], row["path"]


def test_examples_validate_against_the_published_json_schema():
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(design_json_schema())
    for path in EXAMPLE_FILES:
        doc = json.loads(path.read_text())
        assert list(validator.iter_errors(design_to_dict(parse_design(doc)))) == [], path.stem
    assert list(validator.iter_errors({"compute": {}, "workload": {}}))


# --- catalog references -----------------------------------------------------------------------


def test_reference_errors_against_a_stand_in_catalog():
    fake = SimpleNamespace(
        gpus={"h100-sxm-80gb": {}},
        systems={},
        switches={"nvidia-qm9700": {}},
        nics={"cx7-ndr-400g": {}},
        storage={},
        cooling={"air": {}},
        regions={},
    )
    assert reference_errors(parse_design(MINIMAL), fake) == []
    doc = with_changes(
        MINIMAL,
        **{
            "compute.gpu_sku": "h100-nvl",
            "facility.cooling": "immersion",
            "regions.sites": [
                {
                    **design_to_dict(parse_design(MINIMAL))["regions"]["sites"][0],
                    "catalog_region_id": "mars-1",
                }
            ],
        },
    )
    found = {e["path"]: e for e in reference_errors(parse_design(doc), fake)}
    assert set(found) == {
        "compute.gpu_sku",
        "facility.cooling",
        "regions.sites.0.catalog_region_id",
    }
    assert found["compute.gpu_sku"]["allowed"] == {"one_of": ["h100-sxm-80gb"]}
    assert "unknown GPU 'h100-nvl'" in found["compute.gpu_sku"]["message"]


def test_examples_reference_only_catalog_ids():
    catalog_module = pytest.importorskip(
        "models_engine.catalog", reason="the catalog (models_engine.catalog) is not written yet"
    )
    catalog = catalog_module.load_catalog()
    for path in EXAMPLE_FILES:
        spec = parse_design(json.loads(path.read_text()))
        assert reference_errors(spec, catalog) == [], path.stem


def test_design_spec_class_is_exported():
    assert DesignSpec.model_fields["spec_version"].default == SPEC_VERSION
