"""Protection of the shared tiers: replication (r copies) or erasure coding (k data + m parity).

- raw / usable = r, or (k + m) / k; the spec's capacity_tb is usable, so raw = usable x that.
- tolerated failures = r - 1, or m (failure units: drives or nodes, whichever the scheme spans).
- rebuild of one failed unit: replication copies the unit's data once; erasure coding reads k
  fragments for each lost one (k x the unit's data) and writes the unit's data. Rebuild runs at
  a share of the tier's write bandwidth (data.py: assumption).
"""

from __future__ import annotations

from .data import FAILURE_UNIT_TB, REBUILD_BANDWIDTH_SHARE, TB_BYTES


def scheme_figures(durability) -> dict:
    if durability.scheme == "replication":
        r = durability.replicas
        return {
            "scheme": "replication",
            "label": f"{r}x replication",
            "raw_per_usable": float(r),
            "tolerated_failures": r - 1,
            "rebuild_read_factor": 1.0,
        }
    k, m = durability.ec_data_k, durability.ec_parity_m
    return {
        "scheme": "erasure-coding",
        "label": f"EC {k}+{m}",
        "raw_per_usable": (k + m) / k,
        "tolerated_failures": m,
        "rebuild_read_factor": float(k),
    }


def durability_block(storage) -> dict:
    figures = scheme_figures(storage.durability)
    tiers = []
    for index, tier in enumerate(storage.tiers):
        if tier.kind == "local-nvme":
            continue
        unit_tb = FAILURE_UNIT_TB[tier.kind]
        moved_bytes = unit_tb * TB_BYTES * (figures["rebuild_read_factor"] + 1.0)
        rebuild_bandwidth = tier.write_gbytes_per_s * 1e9 * REBUILD_BANDWIDTH_SHARE
        tiers.append(
            {
                "tier": index,
                "kind": tier.kind,
                "usable_tb": tier.capacity_tb,
                "raw_tb": tier.capacity_tb * figures["raw_per_usable"],
                "tolerated_failures": figures["tolerated_failures"],
                "failure_unit_tb": unit_tb,
                "rebuild_h": moved_bytes / rebuild_bandwidth / 3600.0,
                "rebuild_bandwidth_share": REBUILD_BANDWIDTH_SHARE,
            }
        )
    return {
        **figures,
        "tiers": tiers,
        "local_nvme": "not protected (scratch cache; a lost node's shard is re-read)",
    }
