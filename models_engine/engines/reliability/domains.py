"""Failure domains (blast radius) and findings where "redundancy" is not independent.

A synchronous training job is a series system: any failure inside its failure domain stops it
(reliability.md "Failure domains"). For each domain: the GPUs a single failure takes down, the
GPUs it leaves idle (the rest of a stopped synchronous job), and the jobs it stops."""

from __future__ import annotations

import math

# Racks sharing one cooling loop / CDU or air-handling zone (assumption: one row of a 2 x 10
# hot-aisle pod, as in the facility engine's floor plan).
RACKS_PER_COOLING_ZONE = 10
# Share of switch failures that are vendor-OS bugs, which hit every switch of a plane running
# the same software (Singh et al., CCR 2021, reliability.md).
SWITCH_OS_BUG_SHARE = 0.17


def finding(finding_id: str, severity: str, domain: str, message: str) -> dict:
    return {"id": finding_id, "severity": severity, "domain": domain, "message": message}


def _jobs_stopped(spec, gpus_lost: float, job_gpus: int) -> float:
    if gpus_lost <= 0:
        return 0
    if spec.workload.kind == "training":
        return 1
    replicas = spec.compute.gpu_count // job_gpus
    return min(replicas, math.ceil(gpus_lost / job_gpus))


def _row(spec, inventory, domain: str, gpus_lost: float, note: str, degraded: str = "") -> dict:
    job = inventory.job_gpus
    stopped = _jobs_stopped(spec, gpus_lost, job)
    training = spec.workload.kind == "training"
    idled = (job - min(gpus_lost, job)) if (training and stopped) else 0
    return {
        "domain": domain,
        "gpus_lost": gpus_lost,
        "gpus_idled": idled,
        "jobs_stopped": stopped,
        "degradation": degraded or None,
        "note": note,
    }


def _site_gpus(spec) -> list[tuple[str, int]]:
    gpus = spec.compute.gpu_count
    return [
        (site.id, round(site.gpu_share * gpus)) for site in spec.regions.sites if site.gpu_share > 0
    ]


def failure_domains(spec, inventory) -> list[dict]:
    compute, facility, fabric = spec.compute, spec.facility, spec.fabric
    per_rack = inventory.gpus_per_rack
    rows = [_row(spec, inventory, "node", inventory.gpus_per_node, "one server / compute tray")]
    if compute.nvlink_domain.gpus > compute.gpus_per_node:
        rows.append(
            _row(
                spec,
                inventory,
                "nvlink_domain",
                compute.nvlink_domain.gpus,
                "an NVLink switch tray or spine fault drops the whole scale-up domain",
            )
        )
    rows.append(_row(spec, inventory, "rack", per_rack, f"{per_rack} GPUs per rack"))
    two_paths = facility.power_redundancy == "2N"
    rows.append(
        _row(
            spec,
            inventory,
            "pdu",
            0 if two_paths else per_rack,
            "A/B rack PDUs on separate feeds: the other carries the rack"
            if two_paths
            else "one power path per rack: its PDU is a single point of failure",
        )
    )
    site_gpus = max((g for _, g in _site_gpus(spec)), default=compute.gpu_count)
    rows.append(
        _row(
            spec,
            inventory,
            "power_feed",
            0 if two_paths else site_gpus,
            "2N: two independent UPS / switchboard paths"
            if two_paths
            else f"{facility.power_redundancy}: redundant units on one distribution path",
        )
    )
    rows.append(
        _row(
            spec,
            inventory,
            "leaf",
            inventory.gpus_behind_leaf,
            f"{inventory.nodes_behind_leaf:g} nodes lose a scale-out link",
        )
    )
    spines = inventory.spines + inventory.cores
    rows.append(
        _row(
            spec,
            inventory,
            "spine",
            0,
            "traffic reroutes over the remaining spines",
            f"bisection bandwidth -{100.0 / spines:.2g}%" if spines else "",
        )
    )
    single_plane = fabric.planes == 1
    rows.append(
        _row(
            spec,
            inventory,
            "spine_plane",
            compute.gpu_count if single_plane else 0,
            "one plane: a plane-wide fault (subnet manager, switch OS bug) cuts every GPU off"
            if single_plane
            else "dual-plane: the other plane carries traffic",
            "" if single_plane else "scale-out bandwidth -50%",
        )
    )
    zone_gpus = min(compute.gpu_count, RACKS_PER_COOLING_ZONE * per_rack)
    rows.append(
        _row(
            spec,
            inventory,
            "cooling_loop",
            0 if facility.cooling_redundancy == "2N" else zone_gpus,
            f"{RACKS_PER_COOLING_ZONE} racks per loop / air zone (assumption); "
            f"{facility.cooling_redundancy} units",
        )
    )
    rows.append(_row(spec, inventory, "hall", site_gpus, "everything in the largest site's hall"))
    rows.append(_region_row(spec, inventory, site_gpus))
    return rows


def _region_row(spec, inventory, site_gpus: int) -> dict:
    row = _row(spec, inventory, "region", site_gpus, "a whole site / region outage")
    strategy = spec.regions.cross_region_strategy
    if strategy in ("hierarchical", "async-averaging", "federated"):
        row["gpus_idled"] = 0
        row["note"] += f"; with {strategy} training the other sites keep training"
    return row


def redundancy_findings(spec, inventory, facility_block: dict) -> list[dict]:
    facility, fabric = spec.facility, spec.fabric
    out: list[dict] = []
    if inventory.psu_redundant and facility.power_redundancy != "2N":
        out.append(
            finding(
                "psu-redundancy-on-one-feed",
                "medium",
                "pdu",
                f"each node's redundant PSUs ({inventory.psu_redundancy or 'N+1'}) hang off one "
                f"power path ({facility.power_redundancy}): a rack PDU or feed failure takes "
                "the node down anyway; the PSU redundancy only covers a PSU failure",
            )
        )
    elif facility.power_redundancy == "2N":
        out.append(
            finding(
                "psu-split-across-feeds",
                "low",
                "pdu",
                "2N power only helps if every node's PSUs are split across the A and B feeds "
                "and each side alone can carry the node; a pair cabled to one PDU is a single "
                "point of failure",
            )
        )
    if fabric.planes == 1:
        out.append(
            finding(
                "single-plane-fabric",
                "medium",
                "spine_plane",
                "one scale-out plane: spine redundancy shares one control plane and one switch "
                f"OS, and ~{SWITCH_OS_BUG_SHARE:.0%} of switch failures are vendor-OS bugs "
                "(Singh et al. 2021): a plane-wide fault stops every job; a second plane makes "
                "it a bandwidth loss",
            )
        )
    if inventory.leaves > 1:
        out.append(
            finding(
                "single-leaf-attachment",
                "low",
                "leaf",
                f"every NIC port has one leaf: a leaf failure disconnects "
                f"{inventory.gpus_behind_leaf:g} GPUs and stops the synchronous job "
                "(dual-ToR attachment, as in Alibaba HPN, avoids this)",
            )
        )
    if "N" in (facility.power_redundancy, facility.cooling_redundancy):
        out.append(
            finding(
                "no-facility-redundancy",
                "high",
                "hall",
                f"power {facility.power_redundancy} / cooling {facility.cooling_redundancy}: "
                f"Uptime Tier {facility_block['uptime_tier']}, "
                f"~{facility_block['downtime_h_per_year']:.0f} h of outage a year",
            )
        )
    if facility.cooling_redundancy != "2N":
        out.append(
            finding(
                "shared-cooling-loop",
                "low",
                "cooling_loop",
                f"cooling units are {facility.cooling_redundancy} but the racks of one loop / "
                "zone share its piping and controls: a loop fault stops them all",
            )
        )
    gpu_sites = [s for s in spec.regions.sites if s.gpu_share > 0]
    if spec.regions.cross_region_strategy == "synchronous" and len(gpu_sites) > 1:
        out.append(
            finding(
                "synchronous-across-regions",
                "medium",
                "region",
                f"one synchronous job over {len(gpu_sites)} sites: an outage or WAN cut at any "
                "site stops all of them",
            )
        )
    return out
