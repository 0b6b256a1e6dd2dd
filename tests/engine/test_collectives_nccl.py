"""Collectives against nccl-tests measurements (../shared/reference/performance.md C01, C02,
C04, C06) and the nccl-tests bus-bandwidth conventions, on the network the fabric engine
builds."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from models_engine.catalog import load_catalog
from models_engine.engines.collectives import bus_factor, evaluate_collective, topology_from_fabric
from models_engine.engines.fabric import evaluate_fabric
from models_engine.hardware import resolve_gpu
from models_engine.spec import parse_design
from models_engine.validation.published import published_file

CATALOG = load_catalog()
MiB = 2**20


def design(gpu_sku="h100-sxm-80gb", gpus=64, nic="cx7-ndr-400g", nic_gbps=400, **fabric):
    return parse_design(
        {
            "workload": {
                "layers": 2,
                "hidden_size": 1024,
                "attention_heads": 8,
                "ffn_hidden_size": 4096,
            },
            "compute": {"gpu_sku": gpu_sku, "gpu_count": gpus},
            "fabric": {"nic_sku": nic, "nic_speed_gbps": nic_gbps, **fabric},
        }
    )


def topology(*args, **kwargs):
    """The hierarchy on the fabric the fabric engine builds for the design."""
    spec = design(*args, **kwargs)
    fabric = evaluate_fabric(spec, CATALOG).primary
    gpu = resolve_gpu(spec.compute, CATALOG)
    return topology_from_fabric(spec.compute, gpu, CATALOG, fabric, settings=spec.fabric)


# C01: DGX H100, 8 GPUs, all_reduce_perf (NVLS default), float sum: size -> time us.
# The same file the validation panel scores (models_engine/validation/published/).
C01_TIME_US = {
    int(mib) * MiB: us for mib, us in published_file("collectives_nccl")["time_us_by_mib"].items()
}
C01_LATENCY_FLOOR_US = 13.67  # 8 bytes


def test_dgx_h100_all_reduce_curve_within_10_percent_from_1_mib():
    h100 = topology()
    print(f"\n{'size':>10s} {'measured us':>12s} {'model us':>10s} {'error':>7s} algorithm busbw")
    for size, measured in C01_TIME_US.items():
        result = evaluate_collective("all_reduce", size, 8, h100)
        model = result["time_s"] * 1e6
        error = model / measured - 1
        print(
            f"{size // MiB:>7d} MiB {measured:12.1f} {model:10.1f} {error:+7.1%} "
            f"{result['algorithm']:>5s} {result['busbw_gb_per_s']:6.1f} GB/s"
        )
        assert abs(error) < 0.10


def test_dgx_h100_all_reduce_latency_floor_within_25_percent():
    result = evaluate_collective("all_reduce", 8, 8, topology())
    model = result["time_s"] * 1e6
    print(f"\n8 B all-reduce: measured {C01_LATENCY_FLOOR_US} us, model {model:.2f} us")
    assert abs(model / C01_LATENCY_FLOOR_US - 1) < 0.25


def test_large_all_reduce_inside_h100_node_uses_nvls_at_480_busbw():
    result = evaluate_collective("all_reduce", 8 * 2**30, 8, topology())
    assert result["algorithm"] == "nvls"
    assert result["busbw_gb_per_s"] == pytest.approx(480, rel=0.02)  # C01 / C02


# C02 (nccl #1455): NCCL_ALGO=NVLS busbw by GPUs in one H100 node, 2 GiB - 4 GiB messages.
C02_NVLS_BUSBW = {5: 420.0, 6: 440.0, 7: 460.0, 8: 480.0}
C02_RING_BUSBW = 370.0  # ring busbw, 2 - 8 GPUs; NVLS also shows ~370 on 2 - 4 GPUs


def test_nvls_busbw_grows_with_the_group_as_its_algbw_stays():
    h100 = topology()
    print(f"\n{'GPUs':>4s} {'measured':>9s} {'model':>7s} {'error':>7s} algorithm")
    for gpus, measured in C02_NVLS_BUSBW.items():
        result = evaluate_collective("all_reduce", 4 * 2**30, gpus, h100)
        error = result["busbw_gb_per_s"] / measured - 1
        print(
            f"{gpus:4d} {measured:9.1f} {result['busbw_gb_per_s']:7.1f} {error:+7.1%} "
            f"{result['algorithm']}"
        )
        assert result["algorithm"] == "nvls"
        assert abs(error) < 0.05
    for gpus in (2, 3):  # NVLS algbw x 2 (n - 1) / n is below the ring here: the tuner rings
        result = evaluate_collective("all_reduce", 4 * 2**30, gpus, h100)
        assert result["algorithm"] == "ring"
        assert result["busbw_gb_per_s"] == pytest.approx(C02_RING_BUSBW, rel=0.03)


def test_ring_all_gather_inside_h100_node_reaches_ring_busbw():
    result = evaluate_collective("all_gather", 8 * 2**30, 8, topology())
    assert result["algorithm"] == "ring"
    assert result["busbw_gb_per_s"] == pytest.approx(370, rel=0.03)  # C02 ring 365-370


def test_a100_all_reduce_busbw_near_230():
    result = evaluate_collective("all_reduce", 8 * 2**30, 8, topology("a100-sxm-80gb"))
    assert result["busbw_gb_per_s"] == pytest.approx(230, rel=0.03)  # C04


def test_one_gpu_per_node_ring_is_bound_by_one_ndr_nic():
    """C06: 46-49 GB/s per NDR NIC (rings, no SHARP: NCCL's default)."""
    no_sharp = topology(in_network_reduction="off")
    result = evaluate_collective("all_reduce", 4 * 2**30, 16, no_sharp, ranks_per_domain=1)
    assert result["level"] == "scale_out"
    assert 44 <= result["busbw_gb_per_s"] <= 49


def test_full_nodes_use_every_rail():
    """Eight GPUs per node drive eight NICs: busbw ~ 8 x 48, capped by the NVLink ring (no
    SHARP: with it the switches reduce and busbw is no longer bounded by the NICs)."""
    no_sharp = topology(in_network_reduction="off")
    result = evaluate_collective("all_reduce", 4 * 2**30, 64, no_sharp, ranks_per_domain=8)
    assert 340 <= result["busbw_gb_per_s"] <= 385


def test_all_to_all_across_nodes_is_limited_by_the_nic():
    result = evaluate_collective("all_to_all", 1 * 2**30, 64, topology(), ranks_per_domain=8)
    assert result["busbw_gb_per_s"] < 60


def test_leaf_oversubscription_slows_traffic_that_leaves_the_leaf():
    flat = topology(gpus=1024)
    oversubscribed = topology(gpus=1024, oversubscription={"leaf": 4.0, "spine": 1.0})
    # The fabric engine's leaf port split sets the oversubscription the collectives see.
    assert oversubscribed.scale_out.leaf_oversubscription > 2.0
    big = [
        evaluate_collective("all_reduce", 2**30, 128, t, ranks_per_domain=1)
        for t in (flat, oversubscribed)
    ]
    assert big[1]["time_s"] > 2 * big[0]["time_s"]
    small = [
        evaluate_collective("all_reduce", 2**30, 4, t, ranks_per_domain=1)
        for t in (flat, oversubscribed)
    ]
    assert small[1]["time_s"] == pytest.approx(small[0]["time_s"])  # one leaf: unaffected


def test_busbw_factors_follow_nccl_tests():
    assert bus_factor("all_reduce", 8) == pytest.approx(2 * 7 / 8)
    for operation in ("all_gather", "reduce_scatter", "all_to_all"):
        assert bus_factor(operation, 8) == pytest.approx(7 / 8)
    assert bus_factor("broadcast", 8) == 1


def test_unknown_operation_names_the_allowed_ones():
    with pytest.raises(ValueError, match="all_reduce"):
        evaluate_collective("allreduce", 1e6, 8, topology())


@given(
    small=st.floats(min_value=8, max_value=2**33),
    factor=st.floats(min_value=1.01, max_value=64),
    ranks=st.sampled_from([2, 4, 8, 16, 64, 512]),
    operation=st.sampled_from(["all_reduce", "all_gather", "reduce_scatter", "all_to_all"]),
)
def test_bigger_messages_never_take_less_time(small, factor, ranks, operation):
    h100 = TOPOLOGY
    a = evaluate_collective(operation, small, ranks, h100)["time_s"]
    b = evaluate_collective(operation, small * factor, ranks, h100)["time_s"]
    assert b >= a


TOPOLOGY = topology()


def test_the_scale_out_level_is_the_fabric_engines_network():
    """No sizing of its own: bandwidth per level, oversubscription and hops are the fabric's."""
    spec = design(gpus=1024, oversubscription={"leaf": 2.0, "spine": 1.0})
    fabric = evaluate_fabric(spec, CATALOG).primary
    network = fabric.network_for_performance
    level = topology_from_fabric(
        spec.compute, resolve_gpu(spec.compute, CATALOG), CATALOG, fabric
    ).scale_out
    assert level.nic_busbw_gb_per_s_per_gpu == network.scale_out_effective_gbytes_per_s_per_gpu
    assert (
        level.cross_leaf_busbw_gb_per_s_per_gpu
        == network.scale_out_effective_gbytes_per_s_per_gpu_cross_leaf
    )
    assert (
        level.cross_pod_busbw_gb_per_s_per_gpu
        == network.scale_out_effective_gbytes_per_s_per_gpu_cross_pod
    )
    assert level.leaf_oversubscription == network.oversubscription["leaf"]
    assert level.max_switch_hops == network.max_switch_hops
