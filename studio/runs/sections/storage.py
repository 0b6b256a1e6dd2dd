"""Storage section: per-site reads, checkpoints, retention, durability and cache fit, the
tiers table of each site, the sites table of a multi-site design and the storage findings."""

from models_engine import SiteStorage, StorageResult
from studio.runs.sections.blocks import (
    Block,
    Card,
    Cards,
    Column,
    Paragraph,
    cell,
    code,
    findings_list,
    table,
    text,
)
from studio.runs.sections.common import site_heading
from studio.runs.sections.format import DASH, TIMES, amount, count, joined, number
from studio.runs.selectors import TypedResults


def blocks(results: TypedResults, run=None) -> list[Block]:
    storage = results.storage
    if storage is None:
        return []
    multi_site = len(storage.sites) > 1
    built: list[Block] = sites_blocks(storage) if multi_site else []
    for index, site in enumerate(storage.sites):
        suffix = f"-{site.site_id}" if index else ""
        if multi_site:
            built.append(site_heading("storage", site.site_id, site.site_name, site.gpus))
        built.append(
            Cards(site_cards(site, results.reliability), id=f"storage-key-figures{suffix}")
        )
        built.append(tiers_table(site, f"storage-tiers{suffix}"))
        local_nvme = site.durability.local_nvme
        lifecycle = site.retention.get("lifecycle")
        notes = joined([lifecycle, local_nvme and f"local NVMe: {local_nvme}"])
        built.append(Paragraph(text(notes), css="muted small"))
    built += findings_list(storage.findings, "storage-findings")
    return built


SITE_COLUMNS = [
    Column("site"),
    Column("GPUs", "count", numeric=True),
    Column("read needed", "GB/s", numeric=True),
    Column("checkpoint", "TB", numeric=True),
    Column("durable write", "s", numeric=True),
    Column("training blocked per checkpoint", "s", numeric=True),
]


def sites_blocks(storage: StorageResult) -> list[Block]:
    rows = []
    for site in storage.sites:
        checkpoint = site.checkpoint if site.checkpoint.applies else None
        rows.append(
            [
                text(code(site.site_id), " ", site.site_name),
                count(site.gpus),
                amount(site.read.get("needed_gbytes_per_s")),
                number(checkpoint and checkpoint.size_tb, 2),
                number(checkpoint and checkpoint.durable_write_s, 1),
                amount(checkpoint and checkpoint.blocking_s),
            ]
        )
    note = text(
        "The job's checkpoint is the one the largest site (",
        code(storage.primary.site_id),
        ") writes; every site holds its own storage tiers, sized to its nodes.",
    )
    return [
        table("storage-sites", SITE_COLUMNS, rows, css="grid rc-table rc-sites", scroll=False),
        Paragraph(note, css="muted small"),
    ]


def _fits(replicated: bool, sharded: bool) -> str:
    return "fits replicated" if replicated else "fits sharded" if sharded else "does not fit"


def site_cards(site: SiteStorage, reliability=None) -> list[Card]:
    read, cache = site.read, site.cache
    checkpoint, durability = site.checkpoint, site.durability
    tiers = read.get("tiers", [])
    best = next((t["kind"] for t in tiers if t["tier"] == read.get("best_tier")), DASH)
    headroom = read.get("headroom_ratio")
    cards = [
        Card(
            "Read needed",
            amount(read.get("needed_gbytes_per_s")),
            "GB/s",
            f"for training data ({read.get('basis')}; tokens/s: {read.get('tokens_per_s_source')})",
        ),
        Card(
            "Best read tier",
            best,
            note=joined(
                [
                    f"tier {read.get('best_tier')}",
                    f"headroom {count(headroom)}{TIMES} the need"
                    if headroom is not None
                    else "no training reads",
                    f"storage network {count(site.storage_network.gbytes_per_s)} GB/s "
                    f"({site.storage_network.mode})",
                ]
            ),
        ),
    ]
    if checkpoint.applies:
        cards += checkpoint_cards(site, reliability)
    else:
        first = site.model_load.tiers[0].read_s if site.model_load.tiers else None
        cards.append(
            Card(
                "Model load",
                number(first, 1),
                "s",
                f"to read the {site.model_load.what} from tier 0 (no training checkpoints)",
            )
        )
    durability_note = (
        f"{number(durability.raw_per_usable, 2, trim=True)} raw TB per usable TB, "
        f"tolerates {durability.tolerated_failures} failures"
        if durability.raw_per_usable
        else ""
    )
    host_ram = _fits(cache.get("fits_host_ram_replicated"), cache.get("fits_host_ram_sharded"))
    nvme = _fits(cache.get("fits_local_nvme_replicated"), cache.get("fits_local_nvme_sharded"))
    return [
        *cards,
        Card("Durability", durability.label or DASH, note=durability_note),
        Card(
            "Dataset cache",
            amount(cache.get("dataset_tb")),
            "TB dataset",
            f"· host RAM: {host_ram} · local NVMe: {nvme}",
        ),
    ]


def _interval(checkpoint, reliability) -> tuple[float | None, str]:
    """The checkpoint interval and who set it: the design's, else the reliability engine's
    (its Daly optimum within the storage's bound); storage never invents one."""
    if checkpoint.interval_min is not None:
        return checkpoint.interval_min, "(design)"
    chosen = (reliability.checkpoint or {}) if reliability is not None else {}
    return chosen.get("chosen_interval_min"), (
        f"({chosen.get('chosen_interval_source')}, reliability engine; the storage sustains "
        f"no less than {number(checkpoint.min_interval_s / 60.0, 1)} min)"
    )


def checkpoint_cards(site: SiteStorage, reliability=None) -> list[Card]:
    checkpoint, retention = site.checkpoint, site.retention
    mode = "async: GPU-to-host phase only" if checkpoint.async_write else "synchronous write"
    interval, interval_note = _interval(checkpoint, reliability)
    durable = checkpoint.durable
    written = retention.get("written_pb_over_horizon")
    if written is None and reliability is not None and reliability.checkpoint:
        written = reliability.checkpoint.get("written_pb_over_horizon")
    return [
        Card(
            "Checkpoint size",
            number(checkpoint.size_tb, 2),
            "TB",
            f"({checkpoint.size_source}, {number(checkpoint.bytes_per_param, 1, trim=True)} "
            f"B/param) · {count(checkpoint.writer_gpus)} writer GPUs",
        ),
        Card("Training blocked per checkpoint", amount(checkpoint.blocking_s), "s", f"({mode})"),
        Card(
            "Durable write",
            number(checkpoint.durable_write_s, 1),
            "s",
            f"to tier {checkpoint.durable_tier} at {count(durable.write_gbytes_per_s)} GB/s "
            f"achieved of {count(durable.rated_write_gbytes_per_s)} rated (limited by "
            f"{durable.limited_by}) · restarts read {checkpoint.restart_source}",
            alert="longer than the interval" if checkpoint.write_fits_interval is False else "",
        ),
        Card("Checkpoint interval", number(interval, 1, trim=True), "min", interval_note),
        Card(
            "Checkpoints retained",
            number(retention.get("retained_tb"), 1),
            "TB per tier",
            f"(newest {retention.get('retention_count')}) · "
            f"{number(written, 1)} PB written over "
            f"{number(retention.get('horizon_years'), 1, trim=True)} years",
        ),
    ]


TIER_COLUMNS = [
    Column("tier"),
    Column("read provided", "GB/s", numeric=True),
    Column("checkpoint write", "s", numeric=True),
    Column("capacity", "TB", numeric=True),
    Column("used", "TB", numeric=True),
    Column("fits"),
]


def tiers_table(site: SiteStorage, table_id: str):
    reads = {t["tier"]: t.get("provided_read_gbytes_per_s") for t in site.read.get("tiers", [])}
    writes = {t.tier: t.write_s for t in site.checkpoint.tiers} if site.checkpoint.applies else {}
    rows = [
        [
            f"{tier['tier']}: {tier['kind']}",
            count(reads.get(tier["tier"])),
            number(writes.get(tier["tier"]), 1),
            count(tier.get("capacity_tb")),
            amount(tier.get("used_tb")),
            cell("yes", "ok") if tier.get("fits") else cell("no", "bad"),
        ]
        for tier in site.retention.get("tiers", [])
    ]
    return table(table_id, TIER_COLUMNS, rows, scroll=False)
