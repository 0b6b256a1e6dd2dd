"""Storage charts: read throughput needed vs provided per tier, checkpoint write and restart read
time per tier, capacity use per tier. Every number is read from the typed storage result
(`StorageResult`, one `SiteStorage` per site); a multi-site design gets one figure per site."""

import plotly.graph_objects as go

from models_engine import SiteStorage
from studio.runs.charts.common import per_site, site_prefix, titled_layout
from studio.runs.selectors import TypedResults

TIMES = "\N{MULTIPLICATION SIGN}"

OK_COLOUR = "#12b76a"
SHORT_COLOUR = "#f04438"
NEEDED_COLOUR = "#b42318"
WRITE_COLOUR = "#2e5aac"
READ_COLOUR = "#9db9f5"
CAPACITY_COLOURS = {"checkpoints": "#2e5aac", "dataset": "#f79009", "free": "#d0d5dd"}


def _tier_label(tier: dict) -> str:
    return f"tier {tier['tier']}: {tier['kind']}"


def _per_site(results: TypedResults, build):
    if results.storage is None:
        return None
    multi = len(results.storage.sites) > 1
    return per_site(
        [(s.site_id, build(s, site_prefix(s.site_name, multi))) for s in results.storage.sites]
    )


def read_throughput_figure(results: TypedResults):
    return _per_site(results, site_read_throughput_figure)


def checkpoint_time_figure(results: TypedResults):
    return _per_site(results, site_checkpoint_time_figure)


def capacity_figure(results: TypedResults):
    return _per_site(results, site_capacity_figure)


def site_read_throughput_figure(site: SiteStorage, prefix: str = "") -> go.Figure | None:
    read = site.read
    tiers = read.get("tiers") or []
    if not tiers:
        return None
    needed = read.get("needed_gbytes_per_s")
    figure = go.Figure()
    figure.add_bar(
        name="provided by the tier",
        x=[_tier_label(t) for t in tiers],
        y=[t["provided_read_gbytes_per_s"] for t in tiers],
        marker_color=[OK_COLOUR if t.get("sufficient") else SHORT_COLOUR for t in tiers],
        customdata=[
            ["n/a" if t.get("headroom_ratio") is None else f"{t['headroom_ratio']:,.3g}{TIMES}"]
            for t in tiers
        ],
        hovertemplate="%{x}: %{y:,.1f} GB/s (headroom %{customdata[0]})<extra></extra>",
    )
    network = read.get("storage_network_gbytes_per_s")
    labels = [_tier_label(t) for t in tiers]
    if network is not None:
        labels.append("storage network")
        figure.add_bar(
            name="storage network",
            x=["storage network"],
            y=[network],
            marker_color="#667085",
            hovertemplate="storage network: %{y:,.1f} GB/s<extra></extra>",
        )
    if needed:
        figure.add_scatter(
            name=f"needed: {needed:.3g} GB/s",
            x=labels,
            y=[needed] * len(labels),
            mode="lines",
            line={"color": NEEDED_COLOUR, "dash": "dash", "width": 2},
            hovertemplate=f"needed {needed:.3g} GB/s<extra></extra>",
        )
        main = "Training-data read throughput: needed vs provided"
        detail = f"needed {needed:.3g} GB/s ({read.get('basis', 'n/a')})"
    else:
        main = "Read throughput provided per tier"
        detail = f"nothing to read during the run: {read.get('basis', 'n/a')}"
    figure.update_layout(
        titled_layout(
            prefix + main,
            detail,
            xaxis={"title": {"text": "storage tier"}},
            yaxis={
                "title": {"text": "read throughput (GB/s, log scale)"},
                "type": "log",
                "dtick": 1,
            },
        ),
        showlegend=bool(needed),
    )
    return figure


def _label(tier) -> str:
    return f"tier {tier.tier}: {tier.kind}"


def site_checkpoint_time_figure(site: SiteStorage, prefix: str = "") -> go.Figure | None:
    checkpoint = site.checkpoint
    model_load = site.model_load
    writes = checkpoint.tiers if checkpoint.applies else []
    reads = model_load.tiers
    if not writes and not reads:
        return None
    figure = go.Figure()
    if writes:
        durable = checkpoint.durable_tier
        figure.add_bar(
            name="write a checkpoint",
            x=[_label(t) for t in writes],
            y=[t.write_s for t in writes],
            marker_color=WRITE_COLOUR,
            customdata=[
                [
                    t.write_gbytes_per_s,
                    t.limited_by,
                    " (durable tier)" if t.tier == durable else "",
                ]
                for t in writes
            ],
            hovertemplate="%{x}%{customdata[2]}: write %{y:,.1f} s at %{customdata[0]:,.0f} GB/s "
            "(limited by %{customdata[1]})<extra></extra>",
        )
    if reads:
        figure.add_bar(
            name=f"read back: {model_load.what}",
            x=[_label(t) for t in reads],
            y=[t.read_s for t in reads],
            marker_color=READ_COLOUR,
            hovertemplate="%{x}: read %{y:,.1f} s<extra></extra>",
        )
    if writes:
        mode = "async write" if checkpoint.async_write else "synchronous write"
        main = f"Checkpoint write and restart time per tier ({checkpoint.size_tb:.2f} TB)"
        every = (
            f"every {checkpoint.interval_min:g} min"
            if checkpoint.interval_min is not None
            else "interval: the reliability engine's"
        )
        detail = f"{mode}: training blocked {checkpoint.blocking_s:.2g} s per checkpoint · {every}"
    else:
        main = f"Load time per tier: {model_load.what}"
        detail = f"{model_load.size_bytes / 1e9:,.0f} GB read at start-up"
    figure.update_layout(
        titled_layout(
            prefix + main,
            detail,
            xaxis={"title": {"text": "storage tier"}},
            yaxis={"title": {"text": "time (s)"}, "rangemode": "tozero"},
        ),
        barmode="group",
    )
    return figure


def site_capacity_figure(site: SiteStorage, prefix: str = "") -> go.Figure | None:
    by_tier = site.breakdown.get("capacity_tb_by_tier") or {}
    if not by_tier:
        return None
    labels = [key.replace(":", ": ", 1) for key in by_tier]
    labels = [f"tier {label}" for label in labels]
    figure = go.Figure()
    for part, colour in CAPACITY_COLOURS.items():
        values = [by_tier[key].get(part) or None for key in by_tier]  # 0 has no log position
        if not any(values):
            continue
        figure.add_bar(
            name=part,
            x=labels,
            y=values,
            marker_color=colour,
            hovertemplate="%{x}: %{y:,.1f} TB " + part + "<extra></extra>",
        )
    retention = site.retention
    detail = "log scale: each part of every tier stays readable"
    if retention.get("retention_count") and site.checkpoint.applies:
        detail = (
            f"newest {retention['retention_count']} checkpoints kept per tier "
            f"({retention.get('retained_tb', 0):,.1f} TB) · log scale"
        )
    figure.update_layout(
        titled_layout(
            f"{prefix}Storage capacity per tier: checkpoints, dataset, free",
            detail,
            xaxis={"title": {"text": "storage tier"}},
            yaxis={"title": {"text": "capacity (TB, log scale)"}, "type": "log", "dtick": 1},
        ),
        barmode="group",
    )
    return figure


SECTION = (
    "storage",
    "Storage",
    [
        ("storage-read-throughput", read_throughput_figure),
        ("storage-checkpoint-time", checkpoint_time_figure),
        ("storage-capacity", capacity_figure),
    ],
)
