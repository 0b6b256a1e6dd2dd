"""What puts each roadmap phase on the plan: the engines' typed results and findings.

Each `decide_*` function reads one design's results and returns a `PhaseDraft`: the triggers
(engine findings, failing security checks, or engine metrics past a stated threshold) and the
actions with the spec changes that answer them. A draft with no trigger is a phase the design
already satisfies (status "done"); nothing is invented for it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from models_engine.engines.cost.result import CostResult
from models_engine.engines.fabric.result import FabricResult
from models_engine.engines.performance.result import PerformanceResult
from models_engine.engines.regions.result import RegionsResult
from models_engine.engines.reliability.result import ReliabilityResult
from models_engine.engines.security.result import SecurityResult
from models_engine.engines.storage.result import StorageResult
from models_engine.hardware import GpuFigures
from models_engine.spec import DesignSpec, Parallelism
from models_engine.spec.fabric import TECHNOLOGY_DEFAULT_PARTS, TECHNOLOGY_LINE_RATE_GBPS

from .result import Trigger

# Thresholds of the metric triggers (engine assumptions, listed in the roadmap's assumptions).
# A bandwidth upgrade proposed for speed must shorten the step by at least this much in the
# engines' re-run: smaller gains do not pay for weeks of hardware work and sit well inside
# the performance engine's validation band (+-7-10 % vs published step times).
MIN_STEP_GAIN = 0.01
MIN_GBPS_PER_GPU = 100.0  # seed: "100 Gbps or better links where training is concentrated"
EXPOSED_SCALE_OUT_COMM_SHARE = 0.10  # exposed DP/EP/PP/CP communication, share of the step
LOW_MFU = 0.35  # below this an explicit layout is handed to the engine's layout search
GOODPUT_GAP = 0.001  # checkpoint interval off the Young/Daly optimum by more than 0.1 %
BLOCKING_CHECKPOINT_S = 1.0  # a synchronous checkpoint stopping the job for longer than this
LOW_UTILISATION = 0.70  # share of GPU-hours doing useful work
UTILISATION_TARGET = 0.80  # what the governance phase is asked to reach
WAN_SLOWDOWN = 0.10  # the cross-site strategy adds more than this to every step

THRESHOLDS = {
    "bandwidth upgrade for speed": f"shortens the step by >= {MIN_STEP_GAIN:.0%} when re-run",
    "per-GPU scale-out line rate": f">= {MIN_GBPS_PER_GPU:g} Gb/s per GPU (seed, fabric phase)",
    "exposed scale-out communication": f"<= {EXPOSED_SCALE_OUT_COMM_SHARE:.0%} of the step",
    "MFU of an explicit layout": f">= {LOW_MFU:.0%} (else the layout search is tried)",
    "checkpoint interval": f"goodput within {GOODPUT_GAP:.1%} of the Young/Daly optimum",
    "synchronous checkpoint": f"blocks the job <= {BLOCKING_CHECKPOINT_S:g} s",
    "utilisation": (
        f">= {LOW_UTILISATION:.0%} of GPU-hours useful (target {UTILISATION_TARGET:.0%})"
    ),
    "cross-site strategy": f"adds <= {WAN_SLOWDOWN:.0%} to the step",
}

# Control-plane security categories: federated identity, policy, dataset / model metadata.
CONTROL_PLANE_GROUPS = {
    "identity": ("identity", "Federated identity and access"),
    "logging": ("policy", "Policy, audit and alerting"),
    "governance": ("policy", "Policy, audit and alerting"),
    "data-residency": ("policy", "Policy, audit and alerting"),
    "ai-provenance": ("metadata", "Dataset and model metadata"),
    "ai-data-access-logging": ("metadata", "Dataset and model metadata"),
    "ai-weight-exfiltration": ("metadata", "Dataset and model metadata"),
    "ai-artifact-signing": ("metadata", "Dataset and model metadata"),
}
# The value each security control takes once the control plane is deployed.
SECURITY_TARGETS: dict[str, Any] = {
    "security.identity_federation": True,
    "security.mfa": "all-users",
    "security.rbac": True,
    "security.audit_logging": True,
    "security.siem": True,
    "security.data_classification": True,
    "security.dataset_provenance_tracking": True,
    "security.model_weight_access_logging": True,
    "security.signed_artifacts": True,
    "security.sbom": True,
}
KEY_MANAGEMENT_WEAK = ("none", "software")

ROCE_FIXES: dict[str, dict[str, Any]] = {
    "roce-no-congestion-control": {
        "fabric.roce.pfc_enabled": True,
        "fabric.roce.ecn_enabled": True,
    },
    "roce-pfc-disabled": {"fabric.roce.pfc_enabled": True},
    "roce-ecn-disabled": {"fabric.roce.ecn_enabled": True},
    "roce-priority-cnp-clash": {"fabric.roce.pfc_priority": 3},
    "roce-priority-network-control": {"fabric.roce.pfc_priority": 3},
    "roce-priority-default-class": {"fabric.roce.pfc_priority": 3},
    "roce-priority-nondefault": {"fabric.roce.pfc_priority": 3},
}
SCALE_OUT_COMM = ("dp_comm_exposed", "ep_comm_exposed", "pp_comm_exposed", "cp_comm_exposed")
DEFAULT_NVME_TIER = {
    # DGX H100: 8 x 3.84 TB U.2 NVMe per node (the spec's own default local tier).
    "kind": "local-nvme",
    "capacity_tb": 30.72,
    "read_gbytes_per_s": 25.0,
    "write_gbytes_per_s": 12.0,
    "sku": None,
}


@dataclass
class ActionDraft:
    id: str
    title: str
    detail: str
    spec_changes: dict[str, Any]
    source: str
    # A bandwidth action proposed for speed: kept only if the engines re-run with it give a
    # step shorter by at least MIN_STEP_GAIN (else the phase says why it is not proposed).
    must_shorten_step: bool = False


@dataclass
class PhaseDraft:
    triggers: list[Trigger] = field(default_factory=list)
    actions: list[ActionDraft] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # why the phase is done / what it covers

    def add(self, action: ActionDraft) -> None:
        self.actions.append(action)


@dataclass
class Design:
    """One evaluated design: its parsed spec, its normalised document, its GPU, its results."""

    spec: DesignSpec
    doc: dict
    gpu: GpuFigures
    results: dict

    @property
    def fabric(self) -> FabricResult:
        return self.results["fabric"]

    @property
    def storage(self) -> StorageResult:
        return self.results["storage"]

    @property
    def performance(self) -> PerformanceResult:
        return self.results["performance"]

    @property
    def regions(self) -> RegionsResult:
        return self.results["regions"]

    @property
    def reliability(self) -> ReliabilityResult:
        return self.results["reliability"]

    @property
    def cost(self) -> CostResult:
        return self.results["cost"]

    @property
    def security(self) -> SecurityResult:
        return self.results["security"]

    @property
    def training(self) -> bool:
        return self.spec.workload.kind == "training"


def _finding(engine: str, item: dict) -> Trigger:
    site = f" ({item['site']})" if item.get("site") else ""
    return Trigger(
        engine=engine,
        finding_id=item["id"],
        severity=str(item.get("severity", "info")),
        message=f"{item.get('message', '')}{site}",
    )


def _metric(
    engine: str, path: str, value: Any, threshold: float | None, message: str, severity="medium"
) -> Trigger:
    return Trigger(
        engine=engine,
        finding_id=path,
        severity=severity,
        message=message,
        kind="metric",
        value=value,
        threshold=threshold,
    )


def _unique(findings: list[dict]) -> list[dict]:
    """Findings repeated per site, once each (the first site's message)."""
    seen, out = set(), []
    for item in findings:
        if item.get("id") not in seen:
            seen.add(item.get("id"))
            out.append(item)
    return out


def where_bound(perf: PerformanceResult) -> str:
    """Where the step's time goes, in words: its largest term (performance engine breakdown)
    and, when scale-out communication is exposed, the bus bandwidth its largest collective
    reaches against the levels it crosses (performance engine collectives and topology)."""
    step = perf.step_time_s
    if not step or not perf.breakdown_s:
        return ""
    term, seconds = max(perf.breakdown_s.items(), key=lambda item: item[1])
    words = (
        f"the step's largest term is {term.replace('_', ' ')}: {seconds:.3g} s of "
        f"{step:.3g} s ({seconds / step:.0%})"
    )
    exposed = sum(perf.breakdown_s.get(key, 0.0) for key in SCALE_OUT_COMM)
    if exposed <= 0:
        return words + "; no scale-out communication is exposed"
    return words + (
        f"; exposed scale-out communication is {exposed:.3g} s ({exposed / step:.0%})"
        + _communication_limit(perf)
    )


def _communication_limit(perf: PerformanceResult) -> str:
    collectives = ((perf.collectives or {}).get("scale_out") or {}).get("collectives") or []
    if not collectives:
        return ""
    largest = max(collectives, key=lambda c: c.get("time_per_step_s", 0.0))
    busbw = largest["busbw_gb_per_s"]
    words = (
        f", its largest collective ({largest['operation'].replace('_', '-')}, "
        f"{largest.get('purpose', '')}) reaching {busbw:.3g} GB/s bus bandwidth per GPU"
    )
    topology = (perf.hardware or {}).get("topology") or {}
    node = topology.get("nvlink_domain") or {}
    nic = (topology.get("scale_out") or {}).get("nic_busbw_gb_per_s_per_gpu")
    node_busbw = node.get("ring_busbw_gb_per_s")
    # Equal (within 5 %) to the node level's bus bandwidth: that level sets the pace.
    if node.get("link") == "pcie" and node_busbw and abs(busbw / node_busbw - 1) < 0.05:
        words += (
            f", the PCIe bandwidth between the GPUs inside a node ({node_busbw:.3g} GB/s per "
            "GPU), not the network" + (f" ({nic:.3g} GB/s per GPU at the NICs)" if nic else "")
        )
    return words


# --- assessment ---------------------------------------------------------------------------


def decide_assessment(d: Design) -> PhaseDraft:
    draft = PhaseDraft()
    summary = d.cost.summary
    if summary.unpriced_not_covered_count:
        draft.triggers.append(
            _metric(
                "cost",
                "summary.unpriced_not_covered_count",
                summary.unpriced_not_covered_count,
                0,
                f"{summary.unpriced_not_covered_count} BOM line(s) have neither a catalog price "
                "nor an allowance: capex and TCO exclude them",
            )
        )
        for item in _unique(d.fabric.findings):
            if item["id"] in ("fabric-price-unknown", "fabric-power-unknown"):
                draft.triggers.append(_finding("fabric", item))
        for item in _unique(d.results["facility"].findings):
            if str(item.get("id", "")).endswith("-unknown"):
                draft.triggers.append(_finding("facility", item))
        items = sorted(
            {
                str(row.get("catalog_id") or row.get("item"))
                for row in d.cost.unpriced_items
                if not row.get("covered_by_allowance")
            }
        )
        draft.add(
            ActionDraft(
                id="assessment-price-gaps",
                title="Close the pricing gaps",
                detail=(
                    "Obtain quotes for the unpriced lines and enter them as catalog price "
                    f"overrides (economics.price_overrides.catalog_prices): {', '.join(items)}"
                    if items
                    else "Obtain quotes for the unpriced lines and enter them as price overrides"
                ),
                spec_changes={},
                source="cost engine: unpriced_items",
            )
        )
    manual = [c for c in d.security.checks if c.get("status") == "MANUAL"]
    if draft.triggers:
        draft.add(
            ActionDraft(
                id="assessment-inventory",
                title="Map assets, topology, dataset locations and compliance constraints",
                detail=(
                    f"Confirm the evaluated design against the estate; verify the "
                    f"{len(manual)} security check(s) the engines cannot decide from the design "
                    "(manual checks) and the residency of every dataset."
                ),
                spec_changes={},
                source="seed: technical assessment; security engine: manual checks",
            )
        )
    else:
        draft.notes.append(
            "the engines evaluated the design with every line priced or covered by an "
            "allowance: the assessment is the evaluation itself"
        )
    return draft


# --- fabric upgrade -----------------------------------------------------------------------


def _per_gpu_gbps(d: Design) -> tuple[int, float]:
    site = min(
        range(len(d.fabric.sites)),
        key=lambda i: (
            d.fabric.sites[i].network_for_performance.scale_out_line_rate_gbit_per_s_per_gpu
        ),
    )
    nfp = d.fabric.sites[site].network_for_performance
    return site, nfp.scale_out_line_rate_gbit_per_s_per_gpu


def _nic_upgrade(spec: DesignSpec, minimum_per_gpu: float) -> dict[str, Any]:
    fabric, compute = spec.fabric, spec.compute
    line_rate = TECHNOLOGY_LINE_RATE_GBPS[fabric.technology]
    changes: dict[str, Any] = {}
    if fabric.nic_speed_gbps < line_rate:
        changes["fabric.nic_speed_gbps"] = line_rate
    if fabric.nics_per_node * line_rate / compute.gpus_per_node < minimum_per_gpu:
        changes["fabric.nics_per_node"] = min(
            64, math.ceil(minimum_per_gpu * compute.gpus_per_node / line_rate)
        )
    return changes


def decide_fabric(d: Design) -> PhaseDraft:
    draft = PhaseDraft()
    spec = d.spec
    changes: dict[str, Any] = {}
    site, per_gpu = _per_gpu_gbps(d)
    if d.training and per_gpu < MIN_GBPS_PER_GPU:
        draft.triggers.append(
            _metric(
                "fabric",
                f"sites.{site}.network_for_performance.scale_out_line_rate_gbit_per_s_per_gpu",
                per_gpu,
                MIN_GBPS_PER_GPU,
                f"{per_gpu:g} Gb/s of scale-out line rate per GPU, below {MIN_GBPS_PER_GPU:g} Gb/s",
                severity="high",
            )
        )
        nic = _nic_upgrade(spec, MIN_GBPS_PER_GPU)
        if nic:
            draft.add(
                ActionDraft(
                    id="fabric-nic-bandwidth",
                    title=f"Raise scale-out bandwidth to >= {MIN_GBPS_PER_GPU:g} Gb/s per GPU",
                    detail=", ".join(f"{k} = {v}" for k, v in nic.items())
                    + f" (the {spec.fabric.technology} line rate)",
                    spec_changes=nic,
                    source="seed: 100 Gbps or better links; fabric engine: line rate per GPU",
                    must_shorten_step=True,
                )
            )
            changes.update(nic)
    # Exposed scale-out communication: the fabric is on the step's critical path.
    step = d.performance.step_time_s
    exposed = {k: d.performance.breakdown_s.get(k, 0.0) for k in SCALE_OUT_COMM}
    heavy = {k: v for k, v in exposed.items() if step and v > EXPOSED_SCALE_OUT_COMM_SHARE * step}
    for key, seconds in heavy.items():
        draft.triggers.append(
            _metric(
                "performance",
                f"breakdown_s.{key}",
                seconds,
                EXPOSED_SCALE_OUT_COMM_SHARE * step,
                f"{key.replace('_', ' ')}: {seconds:.3g} s of a {step:.3g} s step "
                f"({seconds / step:.0%}) waits on the scale-out network",
            )
        )
    if heavy:
        over = spec.fabric.oversubscription
        if over.leaf > 1.0 or over.spine > 1.0:
            draft.triggers.append(
                _metric(
                    "fabric",
                    f"sites.{site}.network_for_performance.oversubscription.leaf",
                    over.leaf,
                    1.0,
                    f"oversubscribed fabric (leaf {over.leaf:g}:1, spine {over.spine:g}:1) "
                    "under exposed communication",
                )
            )
            fix = {"fabric.oversubscription.leaf": 1.0, "fabric.oversubscription.spine": 1.0}
            draft.add(
                ActionDraft(
                    id="fabric-non-blocking",
                    title="Make the compute fabric non-blocking",
                    detail="leaf and spine oversubscription 1:1",
                    spec_changes=fix,
                    source="fabric engine: oversubscription; performance engine: exposed comm",
                    must_shorten_step=True,
                )
            )
            changes.update(fix)
        line = _nic_upgrade(spec, 0.0)
        line = {k: v for k, v in line.items() if k not in changes}
        if line:
            draft.add(
                ActionDraft(
                    id="fabric-line-rate",
                    title="Run the NICs at the technology's line rate",
                    detail=", ".join(f"{k} = {v}" for k, v in line.items()),
                    spec_changes=line,
                    source="performance engine: exposed communication",
                    must_shorten_step=True,
                )
            )
            changes.update(line)
    # Lossless Ethernet / mismatched parts.
    roce: dict[str, Any] = {}
    for item in _unique(d.fabric.findings):
        fid = item["id"]
        if fid in ROCE_FIXES or fid.startswith("roce-ecn-k"):
            draft.triggers.append(_finding("fabric", item))
            roce.update(ROCE_FIXES.get(fid, {}))
        elif fid in ("fabric-nic-protocol", "fabric-nic-speed", "fabric-switch-protocol"):
            draft.triggers.append(_finding("fabric", item))
            parts = TECHNOLOGY_DEFAULT_PARTS[spec.fabric.technology]
            fix = {"fabric.nic_sku": parts["nic_sku"], "fabric.switch_sku": parts["switch_sku"]}
            fix = {k: v for k, v in fix.items() if k not in changes}
            if fix:
                draft.add(
                    ActionDraft(
                        id=f"fabric-parts-{fid}",
                        title="Use parts that match the fabric technology",
                        detail=item["message"],
                        spec_changes=fix,
                        source=f"fabric engine: {fid}",
                    )
                )
                changes.update(fix)
        elif fid == "fabric-nics-per-node" and "fabric.nics_per_node" not in changes:
            draft.triggers.append(_finding("fabric", item))
            fix = {"fabric.nics_per_node": spec.compute.gpus_per_node}
            draft.add(
                ActionDraft(
                    id="fabric-nics-per-node",
                    title="Populate every compute NIC port of the system",
                    detail=item["message"],
                    spec_changes=fix,
                    source="fabric engine: fabric-nics-per-node",
                    must_shorten_step=True,  # more ports only pay for a faster step
                )
            )
            changes.update(fix)
    if roce:
        draft.add(
            ActionDraft(
                id="fabric-lossless-rdma",
                title="Lossless RDMA: PFC on the RDMA class with ECN (DCQCN) marking",
                detail=", ".join(f"{k} = {v}" for k, v in roce.items()),
                spec_changes=roce,
                source="fabric engine: RoCE checks",
            )
        )
    if draft.triggers:
        draft.add(
            ActionDraft(
                id="fabric-telemetry",
                title="Fabric telemetry and flow visibility",
                detail=(
                    "Per-port counters, PFC/ECN statistics and flow telemetry correlated with "
                    "step time, so the effect of each change is measured at the application "
                    "level (not modelled by the engines: no spec change)"
                ),
                spec_changes={},
                source="seed: telemetry and flow visibility",
            )
        )
    else:
        draft.notes.append(
            f"{per_gpu:g} Gb/s of RDMA line rate per GPU on {spec.fabric.technology}, no RoCE "
            "or parts findings, exposed scale-out communication under "
            f"{EXPOSED_SCALE_OUT_COMM_SHARE:.0%} of the step"
        )
    return draft


# --- unified control plane ----------------------------------------------------------------


def decide_control_plane(d: Design) -> PhaseDraft:
    draft = PhaseDraft()
    groups: dict[str, tuple[str, list[dict], dict[str, Any]]] = {}
    for check in d.security.checks:
        if check.get("status") != "FAIL" or check.get("category") not in CONTROL_PLANE_GROUPS:
            continue
        key, title = CONTROL_PLANE_GROUPS[check["category"]]
        draft.triggers.append(
            Trigger(
                engine="security",
                finding_id=check["id"],
                severity=str(check.get("severity", "medium")),
                message=str(check.get("title", "")),
                kind="check",
            )
        )
        _title, checks, changes = groups.setdefault(key, (title, [], {}))
        checks.append(check)
        for path, value in (check.get("evidence") or {}).items():
            target = SECURITY_TARGETS.get(path)
            if target is not None and value != target:
                changes[path] = target
            if path == "security.key_management" and value in KEY_MANAGEMENT_WEAK:
                changes[path] = "kms"
    for key, (title, checks, changes) in groups.items():
        draft.add(
            ActionDraft(
                id=f"control-plane-{key}",
                title=title,
                detail="; ".join(f"{c['id']}: {c.get('title', '')}" for c in checks),
                spec_changes=changes,
                source="security engine: " + ", ".join(c["id"] for c in checks),
            )
        )
    residency = d.regions.residency_findings
    for item in residency:
        draft.triggers.append(
            Trigger(
                engine="regions",
                finding_id=_residency_id(item),
                severity=str(item.get("severity", "medium")),
                message=str(item.get("message", "")),
            )
        )
    if residency:
        draft.add(
            ActionDraft(
                id="control-plane-residency-policy",
                title="Residency policy in the scheduler and the data catalog",
                detail=(
                    "Datasets labelled with their residency; the scheduler assigns their "
                    "samples only to ranks at compliant sites (no spec field: not modelled)"
                ),
                spec_changes={},
                source="regions engine: residency findings",
            )
        )
    _storage_tiering(d, draft)
    if draft.triggers:
        draft.add(
            ActionDraft(
                id="control-plane-topology-aware-scheduling",
                title="Topology-aware orchestration",
                detail=(
                    "A scheduler that knows accelerators, NVLink domains, leaves and sites "
                    "(Slurm topology/block, Kubernetes with topology-aware placement) keeps "
                    "each job inside one fabric (no spec field: not modelled)"
                ),
                spec_changes={},
                source="seed: orchestration aware of accelerators and network topology",
            )
        )
    else:
        draft.notes.append(
            "no failing identity, policy, logging, provenance or residency check; storage "
            "keeps up with data loading and holds the dataset and checkpoints"
        )
    return draft


def _residency_id(item: dict) -> str:
    return f"residency:{item.get('dataset')}@{item.get('region')}"


def _storage_tiering(d: Design, draft: PhaseDraft) -> None:
    spec = d.spec
    tiers = [tier.model_dump(mode="json") for tier in spec.storage.tiers]
    has_nvme = any(t["kind"] == "local-nvme" for t in tiers)
    seen: set[str] = set()
    for site in d.storage.sites:
        for item in site.findings:
            fid = item["id"]
            if fid in seen:
                continue
            if fid in ("storage-read-insufficient", "storage-cache-miss"):
                seen.add(fid)
                draft.triggers.append(_finding("storage", {**item, "site": site.site_id}))
                if not has_nvme and "storage.tiers" not in _changed(draft):
                    draft.add(
                        ActionDraft(
                            id="control-plane-nvme-cache",
                            title="Local NVMe cache tier in front of the shared storage",
                            detail="a local-nvme tier (30.72 TB, 25 GB/s read per node)",
                            spec_changes={"storage.tiers": [DEFAULT_NVME_TIER, *tiers]},
                            source=f"storage engine: {fid}",
                        )
                    )
            elif fid.startswith("storage-capacity-tier-"):
                seen.add(fid)
                draft.triggers.append(_finding("storage", {**item, "site": site.site_id}))
                index = int(fid.rsplit("-", 1)[1])
                row = next(r for r in site.retention["tiers"] if r["tier"] == index)
                needed = math.ceil(float(row["used_tb"]) * 1.25)
                draft.add(
                    ActionDraft(
                        id=f"control-plane-capacity-tier-{index}",
                        title=f"Grow {row['kind']} to hold the dataset and retained checkpoints",
                        detail=f"{row['capacity_tb']:g} TB -> {needed} TB (needed x 1.25)",
                        spec_changes={f"storage.tiers.{index}.capacity_tb": float(needed)},
                        source=f"storage engine: {fid}",
                    )
                )
            elif fid == "storage-traffic-on-compute-fabric" and d.training:
                seen.add(fid)
                draft.triggers.append(_finding("storage", {**item, "site": site.site_id}))
                network = spec.fabric.storage_network
                draft.add(
                    ActionDraft(
                        id="control-plane-storage-network",
                        title="Dedicated storage network for the shared tiers",
                        detail="storage traffic off the compute NICs (storage_network separate)",
                        spec_changes={
                            "fabric.storage_network.mode": "separate",
                            "fabric.storage_network.nics_per_node": max(network.nics_per_node, 2),
                        },
                        source="storage engine: storage-traffic-on-compute-fabric",
                    )
                )


def _changed(draft: PhaseDraft) -> set[str]:
    return {path for action in draft.actions for path in action.spec_changes}


# --- training optimisation ----------------------------------------------------------------


def decide_training(d: Design) -> PhaseDraft:
    draft = PhaseDraft()
    spec = d.spec
    cross = d.regions.cross_region
    if cross:
        _cross_region(d, cross, draft)
    if spec.workload.precision != "fp8" and d.gpu.fp8_dense_tflops:
        ratio = d.gpu.fp8_dense_tflops / d.gpu.bf16_dense_tflops
        draft.triggers.append(
            _metric(
                "performance",
                "hardware.compute.precision",
                spec.workload.precision,
                None,
                f"matrix multiplies in {spec.workload.precision} on {d.gpu.name}, which has "
                f"{d.gpu.fp8_dense_tflops:g} dense FP8 TFLOPS ({ratio:.1f}x)",
                severity="low",
            )
        )
        draft.add(
            ActionDraft(
                id="training-fp8",
                title="FP8 mixed precision (Transformer Engine)",
                detail=(
                    "FP8 matrix multiplies with BF16 master weights; validate loss curves "
                    "against a BF16 reference before the switch. The expected change counts "
                    "MFU against the BF16 peak on both sides (the performance engine's own "
                    "MFU of an FP8 run counts against the FP8 peak, "
                    f"{ratio:.1f}x higher, so it reads lower although the step is faster)"
                ),
                spec_changes={"workload.precision": "fp8"},
                source="performance engine: precision vs the GPU's FP8 peak",
            )
        )
    mfu = d.performance.mfu
    if d.training and mfu < LOW_MFU and isinstance(spec.workload.parallelism, Parallelism):
        draft.triggers.append(
            _metric(
                "performance",
                "mfu",
                mfu,
                LOW_MFU,
                f"MFU {mfu:.0%} with a hand-set layout",
            )
        )
        draft.add(
            ActionDraft(
                id="training-layout-search",
                title="Parallel layout chosen by the layout search",
                detail="workload.parallelism = auto (tp, pp, dp, cp, recompute searched)",
                spec_changes={"workload.parallelism": "auto"},
                source="performance engine: MFU of the explicit layout",
            )
        )
    if not draft.triggers:
        draft.notes.append(
            f"precision {spec.workload.precision}"
            + (f", cross-site strategy {cross['strategy_chosen']}" if cross else "")
            + f", MFU {mfu:.0%}: nothing for the engines to improve"
        )
    return draft


def _cross_region(d: Design, cross: dict, draft: PhaseDraft) -> None:
    current = cross["strategy_chosen"]
    chosen = cross.get("chosen") or {}
    increase = chosen.get("step_time_increase_fraction") or 0.0
    reasons = [
        item
        for item in d.regions.findings
        if item.get("id") in ("synchronous-wan-not-viable", "no-wan-path")
    ]
    reasons += [
        item for item in d.reliability.findings if item["id"] == "synchronous-across-regions"
    ]
    for item in reasons:
        engine = "reliability" if item["id"] == "synchronous-across-regions" else "regions"
        draft.triggers.append(_finding(engine, item))
    if increase > WAN_SLOWDOWN and not any(
        t.finding_id == "synchronous-wan-not-viable" for t in draft.triggers
    ):
        draft.triggers.append(
            _metric(
                "regions",
                "cross_region.chosen.step_time_increase_fraction",
                increase,
                WAN_SLOWDOWN,
                f"the {current} exchange adds {increase:.0%} to every step",
            )
        )
    if not draft.triggers:
        return
    options = {row["strategy"]: row for row in cross.get("strategies") or []}
    recommended = (cross.get("recommendation") or {}).get("strategy")
    if recommended in (None, current) or recommended == "synchronous":
        candidates = [s for s in options if s not in (current, "synchronous", "none")]
        recommended = min(candidates, key=lambda s: options[s]["step_time_s"], default=None)
        if "hierarchical" in candidates and (
            options["hierarchical"]["step_time_s"] <= options[recommended]["step_time_s"] * 1.01
        ):
            recommended = "hierarchical"  # sync inside each site, averaging across (seed)
    if recommended and recommended != current:
        draft.add(
            ActionDraft(
                id="training-cross-region-strategy",
                title=f"Cross-site training: {current} -> {recommended}",
                detail=(
                    "synchronous inside each site, periodic averaging across sites "
                    f"every {d.spec.regions.averaging_interval_steps} steps; add gradient "
                    "compression on the WAN exchange where convergence allows (not modelled)"
                ),
                spec_changes={"regions.cross_region_strategy": recommended},
                source="regions engine: cross_region strategies and recommendation",
            )
        )


# --- checkpoint and recovery automation ---------------------------------------------------

CHECKPOINT_FINDINGS = {
    "storage": (
        "storage-checkpoint-slower-than-interval",
        "storage-checkpoint-blocking",
        "storage-async-staging-ram",
    ),
    "reliability": (
        "checkpoint-interval-off-optimum",
        "checkpoint-not-durable",
        "single-checkpoint-retained",
    ),
}


def decide_checkpoint(d: Design) -> PhaseDraft:
    draft = PhaseDraft()
    if not d.training:
        draft.notes.append("a serving fleet writes no training checkpoints")
        return draft
    spec = d.spec
    policy = spec.storage.checkpoint
    ids = set()
    for item in _unique(d.storage.findings):
        if item["id"] in CHECKPOINT_FINDINGS["storage"]:
            draft.triggers.append(_finding("storage", item))
            ids.add(item["id"])
    for item in d.reliability.findings:
        if item["id"] in CHECKPOINT_FINDINGS["reliability"]:
            draft.triggers.append(_finding("reliability", item))
            ids.add(item["id"])
    checkpoint = d.reliability.checkpoint or {}
    gap = 0.0
    if checkpoint:
        gap = checkpoint["goodput_optimum"]["goodput"] - checkpoint["goodput_at_chosen"]
        if gap > GOODPUT_GAP and "checkpoint-interval-off-optimum" not in ids:
            draft.triggers.append(
                _metric(
                    "reliability",
                    "checkpoint.goodput_at_chosen",
                    checkpoint["goodput_at_chosen"],
                    checkpoint["goodput_optimum"]["goodput"] - GOODPUT_GAP,
                    f"checkpointing every {checkpoint['chosen_interval_min']:.1f} min gives "
                    f"goodput {checkpoint['goodput_at_chosen']:.4f}; the Young/Daly optimum "
                    f"({checkpoint['optimum_interval_min']:.1f} min) gives "
                    f"{checkpoint['goodput_optimum']['goodput']:.4f}",
                )
            )
    ck = d.storage.checkpoint
    blocking = (
        ck.applies and not ck.async_write and ck.blocking_s > BLOCKING_CHECKPOINT_S
    ) and "storage-checkpoint-blocking" not in ids
    if blocking:
        draft.triggers.append(
            _metric(
                "storage",
                "sites.0.checkpoint.blocking_s"
                if len(d.storage.sites) == 1
                else f"sites.{_primary_index(d)}.checkpoint.blocking_s",
                ck.blocking_s,
                BLOCKING_CHECKPOINT_S,
                f"synchronous checkpoints stop the job for {ck.blocking_s:.3g} s each",
            )
        )
    if not draft.triggers:
        draft.notes.append(
            f"{'async' if policy.async_write else 'synchronous'} checkpoints every "
            f"{checkpoint.get('chosen_interval_min', 0):.3g} min (goodput within "
            f"{GOODPUT_GAP:.1%} of the Young/Daly optimum), durable and retained"
        )
        return draft
    interval: dict[str, Any] = {}
    if policy.interval_min != "auto" and (
        gap > GOODPUT_GAP
        or {"checkpoint-interval-off-optimum", "storage-checkpoint-slower-than-interval"} & ids
    ):
        interval["storage.checkpoint.interval_min"] = "auto"
    if not policy.incremental:
        interval["storage.checkpoint.incremental"] = True
    if interval:
        draft.add(
            ActionDraft(
                id="checkpoint-interval",
                title="Incremental checkpoints at the Young/Daly interval",
                detail=(
                    "interval_min = auto (the reliability engine's Daly optimum)"
                    if "storage.checkpoint.interval_min" in interval
                    else "incremental checkpoint storage"
                )
                + (
                    "; incremental: only changed shards written (recorded; the engines do "
                    "not model its smaller writes)"
                    if "storage.checkpoint.incremental" in interval
                    else ""
                ),
                spec_changes=interval,
                source="reliability engine: Young/Daly interval; seed: incremental checkpoints",
            )
        )
    if not policy.async_write and ck.async_staging_fits_host_ram:
        draft.add(
            ActionDraft(
                id="checkpoint-async",
                title="Asynchronous checkpoint writes",
                detail=(
                    f"block only for the GPU-to-host copy ({ck.gpu_to_host_copy_s:.3g} s) "
                    f"instead of the full write ({ck.blocking_s:.3g} s)"
                ),
                spec_changes={"storage.checkpoint.async_write": True},
                source="storage engine: checkpoint blocking time",
            )
        )
    if "single-checkpoint-retained" in ids or policy.retention_count < 2:
        draft.add(
            ActionDraft(
                id="checkpoint-retention",
                title="Checkpoint lifecycle: keep at least 3",
                detail="retention_count = 3, older checkpoints expired automatically",
                spec_changes={"storage.checkpoint.retention_count": 3},
                source="reliability engine: single-checkpoint-retained",
            )
        )
    wan = " (WAN cuts between sites included)" if d.regions.cross_region else ""
    draft.add(
        ActionDraft(
            id="checkpoint-failure-drills",
            title="Recovery drills with failure injection",
            detail=(
                "scheduled restarts from the latest checkpoint under injected node, leaf, "
                f"storage and network-partition faults{wan} (not modelled: no spec change)"
            ),
            spec_changes={},
            source="seed: test recovery paths including network partitions",
        )
    )
    return draft


def _primary_index(d: Design) -> int:
    return max(range(len(d.storage.sites)), key=lambda i: d.storage.sites[i].gpus)


# --- cost model and governance ------------------------------------------------------------


def decide_cost(d: Design) -> PhaseDraft:
    draft = PhaseDraft()
    spec = d.spec
    egress = d.regions.egress
    monthly = float(egress.get("total_usd_per_month") or 0.0)
    replication = float(egress.get("dataset_replication_one_time_usd") or 0.0)
    if monthly > 0:
        draft.triggers.append(
            _metric(
                "regions",
                "egress.total_usd_per_month",
                monthly,
                0.0,
                f"WAN egress {egress.get('total_tb_per_month', 0):.3g} TB/month "
                f"(${monthly:,.0f}/month)",
            )
        )
    if replication > 0:
        draft.triggers.append(
            _metric(
                "regions",
                "egress.dataset_replication_one_time_usd",
                replication,
                0.0,
                f"cross-region dataset replication ${replication:,.0f} one time",
            )
        )
    if monthly > 0 or replication > 0:
        draft.add(
            ActionDraft(
                id="cost-egress-tracking",
                title="Track egress and cross-region replication per link and run",
                detail=(
                    "egress and replication budgets with alerts; move model summaries or "
                    "periodic checkpoints instead of per-step exchanges (not modelled)"
                ),
                spec_changes={},
                source="regions engine: egress",
            )
        )
    ownership = spec.economics.ownership
    if ownership == "cloud-on-demand":
        terms = {t["term"]: t for t in d.cost.cloud_comparison.get("terms", [])}
        on_demand, reserved = terms.get("on-demand"), terms.get("reserved-1yr")
        if (
            on_demand
            and reserved
            and reserved.get("available")
            and reserved["tco_npv_usd"] < on_demand["tco_npv_usd"]
        ):
            draft.triggers.append(
                _metric(
                    "cost",
                    "summary.ownership",
                    ownership,
                    None,
                    f"on-demand capacity: reserved-1yr costs "
                    f"${reserved['usd_per_gpu_hour']:.2f}/GPU-h vs "
                    f"${on_demand['usd_per_gpu_hour']:.2f}",
                )
            )
            draft.add(
                ActionDraft(
                    id="cost-reserved-capacity",
                    title="Reserved capacity instead of on-demand",
                    detail="economics.ownership = cloud-reserved",
                    spec_changes={"economics.ownership": "cloud-reserved"},
                    source="cost engine: cloud comparison",
                )
            )
    utilisation = spec.economics.utilisation
    if utilisation < LOW_UTILISATION:
        draft.triggers.append(
            _metric(
                "cost",
                "unit_costs.utilisation",
                utilisation,
                LOW_UTILISATION,
                f"{utilisation:.0%} of GPU-hours do useful work: every delivered GPU-hour "
                "carries the idle ones",
            )
        )
        draft.add(
            ActionDraft(
                id="cost-utilisation",
                title=f"Utilisation governance: {utilisation:.0%} -> {UTILISATION_TARGET:.0%}",
                detail=(
                    "shared queues, reservations and chargeback; right-size before buying "
                    f"more capacity (target {UTILISATION_TARGET:.0%}, an assumption)"
                ),
                spec_changes={"economics.utilisation": UTILISATION_TARGET},
                source="cost engine: utilisation input; seed: reserved capacity utilisation",
            )
        )
    if not draft.triggers:
        draft.notes.append(
            f"{ownership} capacity at {utilisation:.0%} utilisation with no WAN egress or "
            "cross-region replication"
        )
    return draft


DECIDERS = {
    "assessment": decide_assessment,
    "fabric-upgrade": decide_fabric,
    "control-plane": decide_control_plane,
    "training-optimisation": decide_training,
    "checkpoint-automation": decide_checkpoint,
    "cost-governance": decide_cost,
}
