"""Data residency and dataset placement: where each dataset is, where training needs it,
and whether moving it there is allowed and worth it.

Policy: a GPU site without a copy either reads the data remotely (streams it) or gets a
replica. It gets a replica only when training demand justifies it, i.e. when it would stream
at least one full copy over the run (its share of the reads x epochs >= 1); never when the
dataset's residency forbids the site's jurisdiction."""

from __future__ import annotations

from .jurisdictions import residency_verdict
from .wan import widest_path

REPLICATE_WHEN_STREAMED_COPIES = 1.0
TB = 1e12
GB = 1e9


def _finding(dataset: str, region: str, rule: str, severity: str, message: str) -> dict:
    return {
        "dataset": dataset,
        "region": region,
        "rule": rule,
        "severity": severity,
        "message": message,
    }


def stored_findings(regions, locations) -> list[dict]:
    """A restricted dataset stored (copied) at a site outside its allowed jurisdictions."""
    out = []
    for dataset in regions.datasets:
        if dataset.residency == "any":
            continue
        rule = "residency: " + ", ".join(dataset.residency)
        for site_id in dataset.stored_at:
            location = locations[site_id]
            verdict = residency_verdict(location, dataset.residency)
            if verdict == "forbidden":
                out.append(
                    _finding(
                        dataset.name,
                        site_id,
                        rule,
                        "high",
                        f"'{dataset.name}' must stay in {'/'.join(dataset.residency)} but a copy "
                        f"is stored at {site_id} ({location.country or location.jurisdiction})",
                    )
                )
            elif verdict == "unclear":
                out.append(
                    _finding(
                        dataset.name,
                        site_id,
                        rule,
                        "medium",
                        f"'{dataset.name}' must stay in {'/'.join(dataset.residency)}; site "
                        f"{site_id} is only known as {location.jurisdiction}: name its country "
                        "(catalog_region_id) to confirm",
                    )
                )
    return out


def placement(
    regions, locations, *, epochs: float | None, run_months: float | None
) -> tuple[list[dict], list[dict]]:
    """(dataset plans, residency findings about training reads)."""
    gpu_sites = [site for site in regions.sites if site.gpu_share > 0]
    plans, findings = [], []
    for dataset in regions.datasets:
        rows = []
        restricted = dataset.residency != "any"
        for site in gpu_sites:
            if site.id in dataset.stored_at:
                rows.append({"site": site.id, "action": "stored", "tb": 0.0, "usd": 0.0})
                continue
            verdict = (
                residency_verdict(locations[site.id], dataset.residency)
                if restricted
                else "allowed"
            )
            if verdict != "allowed":
                rows.append(
                    {
                        "site": site.id,
                        "action": "blocked",
                        "tb": 0.0,
                        "usd": 0.0,
                        "reason": f"residency {'/'.join(dataset.residency)}",
                    }
                )
                findings.append(
                    _finding(
                        dataset.name,
                        site.id,
                        "residency: " + ", ".join(dataset.residency),
                        "medium",
                        f"'{dataset.name}' may not be read at {site.id} "
                        f"({locations[site.id].country or locations[site.id].jurisdiction}), "
                        f"which holds {site.gpu_share:.0%} of the GPUs: assign its samples "
                        "only to ranks at compliant sites (or train federated)",
                    )
                )
                continue
            rows.append(_move(regions, dataset, site, epochs, run_months))
        plans.append(
            {
                "dataset": dataset.name,
                "size_tb": dataset.size_tb,
                "residency": dataset.residency,
                "stored_at": list(dataset.stored_at),
                "plan": rows,
            }
        )
    return plans, findings


def _move(regions, dataset, site, epochs, run_months) -> dict:
    sources = [widest_path(regions.wan_links, holder, site.id) for holder in dataset.stored_at]
    sources = [path for path in sources if path is not None]
    if not sources:
        return {
            "site": site.id,
            "action": "unreachable",
            "tb": 0.0,
            "usd": 0.0,
            "reason": "no WAN path from a site holding it",
        }
    path = min(sources, key=lambda p: (p.egress_usd_per_gb, -p.bandwidth_gbps))
    copies = (epochs or 0.0) * site.gpu_share
    if copies >= REPLICATE_WHEN_STREAMED_COPIES or epochs is None:
        tb, action = dataset.size_tb, "replicate"
        reason = (
            f"it would stream {copies:.2g} copies over the run"
            if epochs
            else "no run length: one replica"
        )
    else:
        tb, action = dataset.size_tb * copies, "stream"
        reason = f"streams {copies:.2g} of a copy over the run, less than a replica"
    row = {
        "site": site.id,
        "action": action,
        "from_site": path.sites[0],
        "tb": tb,
        "usd": tb * TB / GB * path.egress_usd_per_gb,
        "reason": reason,
    }
    if action == "stream" and run_months:
        row["tb_per_month"] = tb / run_months
    return row
