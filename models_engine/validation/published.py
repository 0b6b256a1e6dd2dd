"""The other engines' published references (`published/*.json`), scored with the engines
themselves. The engine tests read the same files (tests/engine/test_memory_korthikanti.py and
test_collectives_nccl.py read theirs; test_fabric_superpod.py's Table 4,
test_collectives_multidomain.py's points and test_reliability_published_runs.py's cases are
compared with these rows by tests/engine/test_validation_panel.py), so the panel shows what the
tests assert.

Each file states its family, engine, quantity and unit, the source, the role of its cases (with
why) and the values as published."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from models_engine.catalog import load_catalog
from models_engine.engines.collectives import evaluate_collective, topology_from_fabric
from models_engine.engines.fabric import evaluate_fabric
from models_engine.engines.performance.layout import Layout
from models_engine.engines.performance.memory_fit import memory_breakdown_gib
from models_engine.hardware import resolve_gpu
from models_engine.spec import Workload, parse_design

from .reference import Reference, relative_error

PUBLISHED_DIR = Path(__file__).parent / "published"
MiB = 2**20


@cache
def published_file(name: str) -> dict:
    """One published-reference file, e.g. `published_file("memory_korthikanti")`."""
    return json.loads((PUBLISHED_DIR / f"{name}.json").read_text())


def _common(doc: dict) -> dict:
    source = doc["source"]
    return {
        "engine": doc["engine"],
        "family": doc["family"],
        "quantity": doc["quantity"],
        "unit": doc["unit"],
        "source_title": source["title"],
        "source_url": source["url"],
        "role": doc["role"],
        "headline_keys": tuple(doc["headline_keys"]),
        "note": doc.get("role_note", ""),
        "cluster_specific": doc.get("cluster_specific", True),
    }


def _architecture(gpu_sku: str) -> str | None:
    entry = load_catalog().gpus.get(gpu_sku)
    return entry.architecture if entry else None


def korthikanti_breakdown_gib(model: dict, *, sequence_parallel: bool, recompute: str) -> dict:
    """The engine's memory per GPU (GiB by part) for one Korthikanti et al. configuration."""
    doc = published_file("memory_korthikanti")
    workload = Workload(
        layers=model["layers"],
        hidden_size=model["hidden"],
        attention_heads=model["heads"],
        ffn_hidden_size=4 * model["hidden"],
        gated_mlp=False,
        sequence_length=doc["sequence_length"],
        vocab_size=doc["vocab_size"],
    )
    # ZeRO 0: the Korthikanti runs keep full optimizer states (DP = 1 anyway).
    layout = Layout(
        tp=model["tp"],
        pp=model["pp"],
        dp=1,
        virtual_stages=model["virtual_stages"],
        micro_batch_size=model["micro_batch"],
        zero_stage=0,
        sequence_parallel=sequence_parallel,
        recompute=recompute,
    )
    return memory_breakdown_gib(workload, layout)


def korthikanti_value_gib(model: dict, measure: dict, name: str) -> float:
    parts = korthikanti_breakdown_gib(
        model, sequence_parallel=measure["sequence_parallel"], recompute=measure["recompute"]
    )
    if name == "model_states":
        return parts["weights"] + parts["gradients"] + parts["optimizer_states"]
    return parts["activations"]


def memory_references() -> list[Reference]:
    doc = published_file("memory_korthikanti")
    rows = []
    for model_name, values in doc["published_gib"].items():
        model = doc["models"][model_name]
        for measure_name, published in values.items():
            measure = doc["measures"][measure_name]
            value = korthikanti_value_gib(model, measure, measure_name)
            rows.append(
                Reference(
                    **_common(doc),
                    id=f"korthikanti-{model_name}-{measure_name}".lower(),
                    measured=(
                        f"GPT {model_name}, TP{model['tp']} PP{model['pp']}, "
                        f"micro-batch {model['micro_batch']}: {measure['what']}"
                    ),
                    where="Fig. 1 / Fig. 7",
                    published=published,
                    model=value,
                    error=relative_error(value, published),
                    gpu_sku=doc["gpu_sku"],
                    gpu_architecture=_architecture(doc["gpu_sku"]),
                    gpus=model["gpus"],
                )
            )
    return rows


def nccl_topology():
    """The collectives' hierarchy on the fabric the fabric engine builds for the C01 system."""
    doc = published_file("collectives_nccl")
    catalog = load_catalog()
    spec = parse_design(doc["design"])
    fabric = evaluate_fabric(spec, catalog).primary
    gpu = resolve_gpu(spec.compute, catalog)
    return topology_from_fabric(spec.compute, gpu, catalog, fabric, settings=spec.fabric)


def collective_references() -> list[Reference]:
    doc = published_file("collectives_nccl")
    topology = nccl_topology()
    gpu_sku = doc["design"]["compute"]["gpu_sku"]
    rows = []
    for size_mib, published_us in doc["time_us_by_mib"].items():
        result = evaluate_collective(doc["operation"], int(size_mib) * MiB, doc["ranks"], topology)
        model_us = result["time_s"] * 1e6
        rows.append(
            Reference(
                **_common(doc),
                id=f"nccl-c01-all-reduce-{size_mib}mib",
                measured=f"{doc['operation']} of {int(size_mib):,} MiB on {doc['ranks']} GPUs "
                f"(one DGX H100, NVLink)",
                where=f"all_reduce_perf row {int(size_mib):,} MiB",
                published=published_us,
                model=model_us,
                error=relative_error(model_us, published_us),
                gpu_sku=gpu_sku,
                gpu_architecture=_architecture(gpu_sku),
                gpus=doc["ranks"],
            )
        )
    return rows


def multidomain_topology(system: dict):
    """The collectives' hierarchy on the fabric the fabric engine builds for a published
    multi-node system (compute and fabric as the source describes them)."""
    doc = published_file("collectives_multidomain")
    catalog = load_catalog()
    spec = parse_design(
        {"workload": doc["workload"], "compute": system["compute"], "fabric": system["fabric"]}
    )
    site = evaluate_fabric(spec, catalog).primary
    gpu = resolve_gpu(spec.compute, catalog)
    return topology_from_fabric(spec.compute, gpu, catalog, site, settings=spec.fabric)


def multidomain_references() -> list[Reference]:
    doc = published_file("collectives_multidomain")
    topologies = {name: multidomain_topology(system) for name, system in doc["systems"].items()}
    rows = []
    for point in doc["points"]:
        result = evaluate_collective(
            "all_reduce",
            point["size_bytes"],
            point["ranks"],
            topologies[point["system"]],
            ranks_per_domain=point["per_domain"],
            algorithm=point.get("algorithm"),
        )
        gpu_sku = doc["systems"][point["system"]]["compute"]["gpu_sku"]
        size_mib = point["size_bytes"] / MiB
        rows.append(
            Reference(
                **{
                    **_common(doc),
                    "role": point["role"],
                    "source_title": point["source"],
                    "source_url": point["url"],
                },
                id=f"nccl-{point['system']}-{size_mib:.0f}mib",
                measured=f"all-reduce busbw, {point['label']}, {point['ranks']:,} GPUs, "
                f"{size_mib:,.0f} MiB",
                where=f"{point['label']}, {size_mib:,.0f} MiB",
                published=point["busbw_gb_per_s"],
                model=result["busbw_gb_per_s"],
                error=relative_error(result["busbw_gb_per_s"], point["busbw_gb_per_s"]),
                gpu_sku=gpu_sku,
                gpu_architecture=_architecture(gpu_sku),
                gpus=point["ranks"],
            )
        )
    return rows


def superpod_scale_out(nodes: int):
    """The fabric engine's scale-out network for a DGX H100 SuperPOD of `nodes` nodes."""
    doc = published_file("fabric_superpod_h100")
    design = json.loads(json.dumps(doc["design"]))
    per_node = design["compute"]["gpus_per_node"]
    design["compute"]["gpu_count"] = nodes * per_node
    return evaluate_fabric(parse_design(design), load_catalog()).primary.scale_out


SUPERPOD_COUNTS = {
    "leaf": lambda out: out.switches.leaf,
    "spine": lambda out: out.switches.spine,
    "compute_and_fabric_manager_cables": lambda out: out.cables["compute_and_fabric_manager"],
    "leaf_spine_cables": lambda out: out.cables["leaf_spine"],
}


def fabric_references() -> list[Reference]:
    doc = published_file("fabric_superpod_h100")
    gpu_sku = doc["design"]["compute"]["gpu_sku"]
    rows = []
    for row in doc["rows"]:
        values = dict(zip(doc["columns"], row, strict=True))
        out = superpod_scale_out(values["nodes"])
        for column, count_of in SUPERPOD_COUNTS.items():
            model = float(count_of(out))
            rows.append(
                Reference(
                    **_common(doc),
                    id=f"superpod-h100-{values['scalable_units']}su-{column}".replace("_", "-"),
                    measured=f"{column.replace('_', ' ')}, {values['scalable_units']} SU "
                    f"({values['nodes']} DGX H100)",
                    where=f"Table 4, {values['scalable_units']} SU",
                    published=float(values[column]),
                    model=model,
                    error=relative_error(model, values[column]),
                    gpu_sku=gpu_sku,
                    gpu_architecture=_architecture(gpu_sku),
                    gpus=values["nodes"] * doc["design"]["compute"]["gpus_per_node"],
                )
            )
    return rows


def other_engine_references() -> list[Reference]:
    from .reliability_runs import reliability_references  # it reads this module's files

    return (
        memory_references()
        + collective_references()
        + multidomain_references()
        + fabric_references()
        + reliability_references()
    )
