"""Storage engine: read bandwidth, cache fit, checkpoint size and write time, sync vs async,
retention, durability.

Conventions under test (storage/data.py): checkpoint = params x 14 B (weights + optimizer,
no gradients); write time = S / min(B_tier x achieved fraction, B_network, clients x B_client)
(reliability.md "Checkpoint write time model", with the achieved fraction: shared tiers 2/7,
Llama 3 Tectonic); async blocks for the GPU->host copy at PCIe Gen5 x16 51.2 GB/s
(performance.md [S5]) but never less than the measured DCP async down time (6.3 s);
EC k+m stores (k+m)/k raw per usable byte and survives m failures.
"""

from __future__ import annotations

import copy

import pytest

from models_engine.engines.fabric import evaluate_fabric
from models_engine.engines.performance.memory_fit import total_params
from models_engine.engines.storage import evaluate_storage, evaluate_storage_supply
from models_engine.spec import parse_design
from tests.conftest import EXAMPLES
from tests.engine.fabric_designs import CATALOG, design_doc, example_doc
from tests.engine.reliability_inputs import upstream_results

# A job rate for tests that do not look at data loading (the pipeline passes the performance
# engine's tokens/s).
TOKENS_PER_S = 1e6
SHARED = 2.0 / 7.0  # achieved fraction of a shared tier's rating (Llama 3 Tectonic)


def _storage(doc, *, tokens_per_s: float = TOKENS_PER_S, **kwargs) -> dict:
    """The (single) site's storage as stored JSON."""
    spec = parse_design(doc)
    result = evaluate_storage(
        spec,
        CATALOG,
        storage_supply=evaluate_storage_supply(
            spec, CATALOG, fabric=evaluate_fabric(spec, CATALOG)
        ),
        tokens_per_s=tokens_per_s,
        parameters=total_params(spec.workload),
        **kwargs,
    )
    return result.primary.to_json()


def test_checkpoint_size_is_params_times_14_bytes_unless_given():
    doc = example_doc("dgx-h100-superpod-4su")
    params = total_params(parse_design(doc).workload)
    out = _storage(doc)["checkpoint"]
    assert out["size_bytes"] == pytest.approx(params * 14)
    assert out["size_source"] == "derived"
    given = _storage(doc, checkpoint_bytes=2e12)["checkpoint"]
    assert given["size_bytes"] == 2e12 and given["size_source"] == "given"


def test_write_time_per_tier_is_size_over_the_limiting_bandwidth():
    doc = example_doc("dgx-h100-superpod-4su")
    result = _storage(doc, checkpoint_bytes=1.6e12)
    tiers = {row["kind"]: row for row in result["checkpoint"]["tiers"]}
    # parallel-fs rated 160 GB/s, achieves 2/7 of it; 127 nodes x 2 x 400G = 12.7 TB/s network
    assert tiers["parallel-fs"]["write_s"] == pytest.approx(1.6e12 / (160e9 * SHARED))
    assert tiers["parallel-fs"]["rated_write_gbytes_per_s"] == 160
    assert tiers["parallel-fs"]["limited_by"] == "tier (achieved)"
    # local NVMe: every node writes its shard at 12 GB/s
    assert tiers["local-nvme"]["write_s"] == pytest.approx(1.6e12 / (127 * 12e9))
    # a thin storage network becomes the limit
    thin = copy.deepcopy(doc)
    thin["fabric"]["storage_network"] = {
        "mode": "separate",
        "nic_speed_gbps": 25,
        "nics_per_node": 1,
    }
    thin["storage"]["tiers"][1]["write_gbytes_per_s"] = 7000  # 127 x 25 Gb/s = 397 < 2000
    tiers = {
        row["kind"]: row for row in _storage(thin, checkpoint_bytes=1.6e12)["checkpoint"]["tiers"]
    }
    network = 127 * 25 / 8
    assert tiers["parallel-fs"]["limited_by"] == "storage network"
    assert tiers["parallel-fs"]["write_s"] == pytest.approx(1.6e12 / (network * 1e9))


def test_async_blocks_for_the_host_copy_and_sync_for_the_durable_write():
    doc = example_doc("dgx-h100-superpod-4su")  # zero_stage 1: all 1,016 GPUs write a shard
    out = _storage(doc, checkpoint_bytes=1.016e12)["checkpoint"]
    assert out["writer_gpus"] == 1016
    # 1 GB per GPU at 51.2 GB/s is 20 ms: the measured DCP async down time (6.3 s) governs
    assert out["gpu_to_host_copy_s"] == pytest.approx(1e9 / 51.2e9)
    assert out["blocking_s"] == pytest.approx(6.3)
    huge = _storage(doc, checkpoint_bytes=1.016e15)["checkpoint"]  # 1 TB per GPU: the copy
    assert huge["blocking_s"] == pytest.approx(1e12 / 51.2e9)
    sync = copy.deepcopy(doc)
    sync["storage"]["checkpoint"]["async_write"] = False
    out = _storage(sync, checkpoint_bytes=1.016e12)["checkpoint"]
    assert out["blocking_s"] == pytest.approx(out["durable_write_s"])
    assert out["durable_write_s"] == pytest.approx(1.016e12 / (160e9 * SHARED))


def test_without_optimizer_sharding_one_replica_writes():
    doc = example_doc("inference-fleet")  # zero_stage 0, tp 8
    doc["workload"]["kind"] = "training"
    doc["workload"].pop("inference", None)
    out = _storage(doc)["checkpoint"]
    assert out["writer_gpus"] == 8
    assert out["writer_nodes"] == 1


def test_read_need_is_tokens_per_second_times_bytes_per_token():
    doc = example_doc("dgx-h100-superpod-4su")
    read = _storage(doc, tokens_per_s=3e6)["read"]
    assert read["needed_gbytes_per_s"] == pytest.approx(3e6 * 4 / 1e9)
    assert read["tokens_per_s_source"] == "performance engine"
    provided = {row["kind"]: row["provided_read_gbytes_per_s"] for row in read["tiers"]}
    assert provided["local-nvme"] == pytest.approx(127 * 25)
    assert provided["parallel-fs"] == pytest.approx(320 * SHARED)
    images = copy.deepcopy(doc)
    images["storage"]["bytes_per_sample"] = 4e6  # e.g. video clips per sequence
    read = _storage(images, tokens_per_s=8192 * 1000)["read"]
    assert read["needed_gbytes_per_s"] == pytest.approx(1000 * 4e6 / 1e9)
    assert read["basis"] == "samples/s x bytes_per_sample"


def test_read_shortfall_is_an_error_finding():
    doc = example_doc("dgx-h100-superpod-4su")
    doc["storage"]["bytes_per_sample"] = 5e9
    result = _storage(doc, tokens_per_s=8192 * 1000)
    assert "storage-read-insufficient" in {f["id"] for f in result["findings"]}


def test_cache_fit_in_host_ram_and_local_nvme():
    cache = _storage(example_doc("dgx-h100-superpod-4su"))["cache"]
    # 8 TB dataset: 2 TiB host RAM x 0.5 = 1.1 TB per node; 30.72 TB NVMe per node
    assert cache["fits_local_nvme_replicated"] is True
    assert cache["fits_host_ram_replicated"] is False
    assert cache["fits_host_ram_sharded"] is True
    assert cache["dataset_shard_tb_per_node"] == pytest.approx(8 / 127)


@pytest.mark.parametrize(
    ("durability", "raw_per_usable", "tolerated"),
    [
        ({"scheme": "erasure-coding", "ec_data_k": 8, "ec_parity_m": 2}, 1.25, 2),
        ({"scheme": "erasure-coding", "ec_data_k": 9, "ec_parity_m": 3}, 12 / 9, 3),
        ({"scheme": "replication", "replicas": 3}, 3.0, 2),
    ],
)
def test_durability_usable_raw_and_tolerated_failures(durability, raw_per_usable, tolerated):
    doc = design_doc(storage={"durability": durability})
    out = _storage(doc)["durability"]
    assert out["raw_per_usable"] == pytest.approx(raw_per_usable)
    assert out["tolerated_failures"] == tolerated
    pfs = next(row for row in out["tiers"] if row["kind"] == "parallel-fs")
    assert pfs["raw_tb"] == pytest.approx(4000 * raw_per_usable)
    assert pfs["rebuild_h"] > 0


def test_erasure_rebuild_reads_k_fragments_per_lost_one():
    ec = _storage(design_doc(storage={"durability": {"scheme": "erasure-coding"}}))
    rep = _storage(design_doc(storage={"durability": {"scheme": "replication"}}))
    ec_h = ec["durability"]["tiers"][0]["rebuild_h"]
    rep_h = rep["durability"]["tiers"][0]["rebuild_h"]
    assert ec_h / rep_h == pytest.approx((8 + 1) / (1 + 1))


def test_retention_capacity_and_a_finding_when_full():
    doc = example_doc("dgx-h100-superpod-4su")
    out = _storage(doc, checkpoint_bytes=10e12)
    retention = out["retention"]
    assert retention["retained_tb"] == pytest.approx(5 * 10)
    pfs = next(row for row in retention["tiers"] if row["kind"] == "parallel-fs")
    assert pfs["used_tb"] == pytest.approx(50 + 8)
    full = _storage(doc, checkpoint_bytes=900e12)
    assert "storage-capacity-tier-1" in {f["id"] for f in full["findings"]}
    # auto interval: storage invents none; the reliability engine reports the volume written
    assert retention["checkpoints_per_year"] is None
    fixed = copy.deepcopy(doc)
    fixed["storage"]["checkpoint"]["interval_min"] = 60
    retention = _storage(fixed, checkpoint_bytes=10e12)["retention"]
    assert retention["checkpoints_per_year"] == pytest.approx(8760)
    assert retention["checkpoints_over_horizon"] == pytest.approx(8760 * 5)


def test_checkpoint_slower_than_its_interval_is_an_error():
    doc = example_doc("l40s-custom-gpu-finetune")  # 30 min interval, 10 GB/s parallel-fs
    ok = _storage(doc)
    assert ok["checkpoint"]["write_fits_interval"] is True
    slow = _storage(doc, checkpoint_bytes=50e12)
    ids = {f["id"] for f in slow["findings"]}
    assert "storage-checkpoint-slower-than-interval" in ids
    assert "storage-checkpoint-blocking" in ids  # sync checkpoints


def test_inference_reads_weights_not_training_data():
    out = _storage(example_doc("inference-fleet"))
    assert out["read"]["needed_gbytes_per_s"] == 0
    assert out["checkpoint"]["applies"] is False
    assert out["model_load"]["what"] == "serving weights"
    workload = parse_design(example_doc("inference-fleet")).workload
    bytes_per_weight = {"bf16": 2, "fp16": 2, "fp8": 1}[workload.precision]
    assert out["model_load"]["size_bytes"] == pytest.approx(
        total_params(workload) * bytes_per_weight
    )


def test_storage_network_is_the_fabric_engines():
    """Separate: the storage network's NIC ports x speed; converged: the compute NIC ports."""
    for name in ("dgx-h100-superpod-4su", "l40s-custom-gpu-finetune"):
        spec = parse_design(example_doc(name))
        fabric = evaluate_fabric(spec, CATALOG)
        site = fabric.primary
        network = _storage(example_doc(name))["storage_network"]
        if site.storage_network.mode == "converged":
            nics = site.scale_out.nics
            assert network["gbytes_per_s"] == pytest.approx(nics.ports * nics.speed_gbps / 8)
            assert network["shared_with_compute"] is True
        else:
            net = site.storage_network
            assert network["gbytes_per_s"] == pytest.approx(net.nic_ports * net.nic_speed_gbps / 8)


def test_restart_read_time_is_size_over_the_limiting_read_bandwidth():
    doc = example_doc("dgx-h100-superpod-4su")
    out = _storage(doc, checkpoint_bytes=1.6e12)["checkpoint"]
    pfs = next(row for row in out["tiers"] if row["kind"] == "parallel-fs")
    # 320 GB/s rated x 2/7 achieved < 12.7 TB/s network
    assert pfs["read_s"] == pytest.approx(1.6e12 / (320e9 * SHARED))
    assert out["durable_read_s"] == pfs["read_s"]
    assert out["durable_against_node_loss"] is True


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.stem)
def test_every_site_uses_its_own_fabric_and_the_checkpoint_size_convention(path):
    import json

    spec, _, results = upstream_results(json.loads(path.read_text()))
    storage, fabric = results["storage"], results["fabric"]
    assert [s.site_id for s in storage.sites] == [s.site_id for s in fabric.sites]
    for site in storage.sites:
        assert site.checkpoint.size_bytes == pytest.approx(total_params(spec.workload) * 14)
        own = fabric.site(site.site_id)
        if own.storage_network.mode == "separate":
            assert site.storage_network.gbytes_per_s == pytest.approx(
                own.storage_network.nic_ports * own.storage_network.nic_speed_gbps / 8
            )
    assert storage.checkpoint == storage.primary.checkpoint


def _supply(doc):
    spec = parse_design(doc)
    return evaluate_storage_supply(spec, CATALOG, fabric=evaluate_fabric(spec, CATALOG)).sites[0]


def test_supply_is_nodes_x_local_nvme_and_shared_tiers_capped_by_the_storage_network():
    doc = example_doc("dgx-h100-superpod-4su")  # 127 nodes, 2 x 400G storage NICs each
    supply = _supply(doc)
    tiers = {tier.kind: tier for tier in supply.tiers}
    assert supply.nodes == 127
    assert supply.storage_network.gbytes_per_s == pytest.approx(127 * 2 * 400 / 8)
    assert tiers["local-nvme"].provided_read_gbytes_per_s == pytest.approx(127 * 25)
    assert tiers["parallel-fs"].provided_read_gbytes_per_s == pytest.approx(320 * SHARED)
    assert tiers["parallel-fs"].limited_by == "tier (achieved)"
    # Data loading reads the tier that provides the most: here the local NVMe aggregate.
    assert supply.data_loading_tier == 0
    assert supply.data_loading_gbytes_per_s == pytest.approx(127 * 25)

    # Shared tiers only, on a thin storage network: the network caps the parallel FS.
    thin = copy.deepcopy(doc)
    thin["storage"]["tiers"] = thin["storage"]["tiers"][1:]
    thin["storage"]["tiers"][0]["read_gbytes_per_s"] = 7000  # achieves 2,000 > 397 GB/s
    thin["fabric"]["storage_network"] = {
        "mode": "separate",
        "nic_speed_gbps": 25,
        "nics_per_node": 1,
    }
    supply = _supply(thin)
    network = 127 * 25 / 8
    pfs = supply.tier(0)
    assert pfs.provided_read_gbytes_per_s == pytest.approx(network)
    assert pfs.limited_by == "storage network"
    assert supply.data_loading_tier == 0
    assert supply.data_loading_gbytes_per_s == pytest.approx(network)
    # The full storage result reports the supply's numbers, not its own.
    read = _storage(thin)["read"]
    assert read["tiers"][0]["provided_read_gbytes_per_s"] == pfs.provided_read_gbytes_per_s
    assert read["storage_network_gbytes_per_s"] == supply.storage_network.gbytes_per_s


def test_data_loading_reads_local_nvme_only_when_each_nodes_shard_fits_on_it():
    doc = example_doc("dgx-h100-superpod-4su")  # 127 nodes, 30.72 TB NVMe each
    # 127 x 30.72 TB = 3,901 TB of NVMe: a 5,000 TB dataset's shard (39.4 TB) does not fit.
    doc["storage"]["dataset_size_tb"] = 5000
    supply = _supply(doc)
    assert supply.tier(0).kind == "local-nvme"
    assert supply.data_loading_tier == 1  # the parallel FS, although NVMe reads faster
    assert supply.data_loading_gbytes_per_s == pytest.approx(320 * SHARED)
    # A shard that fits (3,000 TB / 127 = 23.6 TB) is read from the local NVMe.
    doc["storage"]["dataset_size_tb"] = 3000
    assert _supply(doc).data_loading_tier == 0
