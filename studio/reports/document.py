"""Everything the report template shows, built from the report's own snapshot (never from the
live designs): the cover, contents, headline comparison in numbers and words with evidence
grades, the roadmap, one section per engine (the web's charts and blocks, long tables capped),
findings to act on, the diff against the previous report, assumptions and sources."""

from dataclasses import replace

from studio.reports.roadmap import money, roadmap_context
from studio.reports.selectors import covered_run, previous_report
from studio.runs.charts import run_sections
from studio.runs.evidence import headline_evidence, performance_stack
from studio.runs.figures import run_figure_sections
from studio.runs.headline import HEADLINE_METRICS, Metric, headline_changes
from studio.runs.sections import section_blocks
from studio.runs.sections.blocks import BulletList, Group, Heading, Paragraph, Table, text
from studio.runs.sections.format import DASH, amount, count, percent
from studio.runs.sections.performance import stack_summary
from studio.runs.selectors import parse_results

TABLE_ROWS = 25  # longer tables are capped in the report (full data: the run's XLSX)
# The PDF is the board's digest (~10-15 pages): per engine its key charts, cards and the first
# rows of its tables; collapsible detail (conventions, per-row evidence) stays on the web page.
PDF_TABLE_ROWS = 10
PDF_FIGURES_PER_SECTION = 1
PDF_TABLES_PER_SECTION = 1
# Sections without charts, whose tables are the section: the network plan's addressing, ASN map
# and traffic classes per site and its tenant overlays (its detail tables are collapsible, so
# they stay on the web page).
PDF_TABLES_BY_SECTION = {"network": 12}
PDF_TABLE_COLUMNS = 5  # wider tables do not fit an A4 portrait column: web page only
PDF_FINDINGS = 20
PDF_ASSUMPTIONS = 12
PDF_LIST_ITEMS = 6
PDF_SOURCES = 30
MAX_SOURCES = 60
ACT_ON = {"critical", "high", "warning", "medium", "error"}
SEVERITY_RANK = {"critical": 0, "high": 1, "error": 1, "warning": 2, "medium": 2}


def format_metric(value, metric: Metric) -> str:
    if value is None or isinstance(value, bool):
        return DASH
    if metric.unit == "fraction":
        return percent(value)
    if metric.unit in ("USD", "USD/GPU-h"):
        return money(value) if abs(value) >= 1000 else f"${value:,.2f}"
    if metric.unit == "count":
        return count(value)
    unit = f" {metric.unit}" if metric.unit not in ("%",) else " %"
    return f"{amount(value)}{unit}"


def _words(metric: Metric, names: list[str], values: list, best: int | None) -> str:
    """The difference in words: who is better, by how much, and which way is better."""
    if best is None:
        return ""
    others = [(n, v) for i, (n, v) in enumerate(zip(names, values, strict=True)) if i != best]
    parts = []
    for name, value in others:
        if not isinstance(value, int | float) or not value:
            continue
        ratio = values[best] / value - 1
        if abs(ratio) < 0.005:
            parts.append(f"the same as {name}")
            continue
        direction = "lower" if ratio < 0 else "higher"
        parts.append(f"{abs(ratio) * 100:.0f} % {direction} than {name}")
    if not parts:
        return ""
    better = "lower is better" if metric.better == "lower" else "higher is better"
    return f"{names[best]}: {format_metric(values[best], metric)}, {', '.join(parts)} ({better})."


def covers_evidence(covers: list[dict]) -> list[dict]:
    """Per cover, {headline key: HeadlineEvidence} from its snapshot's spec and results (the same
    grade the design's results page shows)."""
    keys = [m.key for m in HEADLINE_METRICS]
    return [
        headline_evidence(c.get("spec"), performance_stack(c.get("results")), keys) for c in covers
    ]


def _evidence_lines(metric: Metric, names: list[str], evidence: list[dict]) -> list[dict]:
    """One line per distinct grade text (designs that share it named together)."""
    lines: dict[str, dict] = {}
    for name, by_key in zip(names, evidence, strict=True):
        found = by_key.get(metric.key)
        if found is None:
            continue
        line = lines.setdefault(found.text, {"evidence": found, "designs": []})
        line["designs"].append(name)
    return list(lines.values())


def comparison(covers: list[dict]) -> list[dict]:
    names = [c["design_name"] for c in covers]
    evidence = covers_evidence(covers)
    rows = []
    for metric in HEADLINE_METRICS:
        values = [c["headline"].get(metric.key) for c in covers]
        if all(v is None for v in values):
            continue
        numbers = [(v, i) for i, v in enumerate(values) if isinstance(v, int | float)]
        best = None
        if len(numbers) >= 2 and metric.better != "neutral" and len({v for v, _ in numbers}) > 1:
            best = (min if metric.better == "lower" else max)(numbers)[1]
        rows.append(
            {
                "metric": metric,
                "cells": [
                    {
                        "text": format_metric(v, metric),
                        "best": i == best,
                        "evidence": evidence[i].get(metric.key),
                    }
                    for i, v in enumerate(values)
                ],
                "words": _words(metric, names, values, best),
                "evidence": _evidence_lines(metric, names, evidence),
            }
        )
    return rows


def covers_stacks(covers: list[dict]) -> list[dict]:
    """Each design's software stack as its snapshot's performance result states it (the
    report details the first design's engines only, so the others' stacks are named here)."""
    stacks = []
    for cover in covers:
        typed = parse_results(cover.get("results"))
        stack = typed.performance.software_stack if typed and typed.performance else None
        if stack is not None:
            stacks.append({"design": cover["design_name"], "text": stack_summary(stack)})
    return stacks


def capped(blocks: list, limit: int = TABLE_ROWS) -> list:
    """The blocks for print: tables cut at `limit` rows with a note, collapsible groups open."""
    out = []
    for block in blocks:
        if isinstance(block, Table) and len(block.rows) > limit:
            out.append(replace(block, rows=block.rows[:limit], scroll=False))
            out.append(
                Paragraph(
                    text(
                        f"First {limit} of {len(block.rows)} rows; the full table is in the "
                        "run's CSV / XLSX download."
                    ),
                    css="muted small capped-note",
                )
            )
        elif isinstance(block, Table):
            out.append(replace(block, scroll=False))
        elif isinstance(block, Group):
            inner = capped(block.blocks, limit)
            if block.summary:
                inner = [Heading(text(block.summary)), *inner]
            out.append(replace(block, blocks=inner, summary=""))
        else:
            out.append(block)
    return out


def findings(covers: list[dict]) -> list[dict]:
    """Engine findings worth acting on (and failing security checks), worst first."""
    found = []
    for cover in covers:
        results = cover["results"]
        for engine in (
            "fabric",
            "network",
            "storage",
            "facility",
            "performance",
            "regions",
            "reliability",
        ):
            for f in (results.get(engine) or {}).get("findings") or []:
                if f.get("severity") in ACT_ON:
                    found.append((cover["design_name"], engine, f["severity"], f["message"]))
        for check in (results.get("security") or {}).get("checks") or []:
            if check.get("status") == "FAIL" and check.get("severity") in ("critical", "high"):
                found.append(
                    (cover["design_name"], "security", check["severity"], check.get("title", ""))
                )
    found.sort(key=lambda f: (SEVERITY_RANK.get(f[2], 9), f[0], f[1]))
    return [
        {"design": d, "engine": e, "severity": s, "message": m}
        for d, e, s, m in dict.fromkeys(found)
    ]


def _walk_sources(node, out: dict[str, str]) -> None:
    if isinstance(node, dict):
        title = node.get("source_title")
        if isinstance(title, str) and title:
            out.setdefault(title, node.get("price_source", ""))
        for key in ("source", "references", "sources"):
            value = node.get(key)
            if isinstance(value, str) and len(value) > 25:
                out.setdefault(value, "")
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, dict) and item.get("title"):
                        out.setdefault(item["title"], item.get("url") or item.get("ref") or "")
        for value in node.values():
            _walk_sources(value, out)
    elif isinstance(node, list):
        for item in node:
            _walk_sources(item, out)


def sources(covers: list[dict], roadmap) -> dict:
    found: dict[str, str] = {}
    catalog: set[str] = set()
    for cover in covers:
        _walk_sources(cover["results"], found)
        for line in ((cover["results"].get("cost") or {}).get("capex") or {}).get("lines") or []:
            if str(line.get("price_source", "")).startswith("catalog:"):
                catalog.add(line["price_source"].removeprefix("catalog:"))
    if roadmap is not None:
        for source in roadmap.sources:
            found.setdefault(source, "")
    items = sorted(found.items())
    return {
        "items": items[:MAX_SOURCES],
        "more": max(0, len(items) - MAX_SOURCES),
        "catalog": sorted(catalog),
    }


def _assumption_value(assumption: dict) -> str:
    value = assumption.get("value")
    if isinstance(value, bool) or value is None:
        return DASH if value is None else str(value)
    if isinstance(value, int | float):
        return f"{amount(value)} {assumption.get('unit', '')}".strip()
    if isinstance(value, dict | list):
        return "varies by item (see the run's cost assumptions)"
    return str(value)


def assumptions(covers: list[dict], roadmap) -> list[dict]:
    cost = covers[0]["results"].get("cost") or {}
    rows = []
    for a in cost.get("assumptions") or []:
        rows.append(
            {
                "name": a.get("name") or a.get("id"),
                "value": _assumption_value(a),
                "source": "; ".join(s.get("title", "") for s in a.get("sources") or []),
            }
        )
    if roadmap is not None:
        rows += [{"name": "Roadmap", "value": text_, "source": ""} for text_ in roadmap.assumptions]
    return rows


def diff_with_previous(report) -> dict | None:
    previous = previous_report(report)
    if previous is None:
        return None
    earlier = {c["design_id"]: c for c in previous.covers}
    designs = []
    for cover in report.covers:
        before = earlier.get(cover["design_id"])
        if before is None:
            continue
        rows = [
            {
                **row,
                "old_text": format_metric(row["old"], row["metric"]),
                "new_text": format_metric(row["new"], row["metric"]),
            }
            for row in headline_changes(before["headline"], cover["headline"])
            if row["delta"]
        ]
        designs.append(
            {
                "name": cover["design_name"],
                "from": f"r{before['revision_number']}",
                "to": f"r{cover['revision_number']}",
                "rows": rows,
            }
        )
    return {"report": previous, "designs": designs}


def digest(blocks: list, max_tables: int = PDF_TABLES_PER_SECTION) -> list:
    """The PDF's blocks of one engine section: cards, headings and text, its first `max_tables`
    tables (cut at PDF_TABLE_ROWS), without the collapsible detail, and no heading left with
    nothing under it."""
    return _without_empty_headings(_digest(blocks, max_tables))


def _without_empty_headings(blocks: list) -> list:
    """Headings whose content the digest left on the web page: a heading followed by another
    heading or by the end of the section."""
    out = []
    for block, after in zip(blocks, [*blocks[1:], None], strict=True):
        if isinstance(block, Heading) and (after is None or isinstance(after, Heading)):
            continue
        out.append(block)
    return out


def _digest(blocks: list, max_tables: int) -> list:
    out, tables = [], 0
    for block in blocks:
        if isinstance(block, Group) and block.summary:
            continue  # collapsible detail: on the web page
        if isinstance(block, Group):
            out.append(replace(block, blocks=digest(block.blocks, max_tables)))
        elif isinstance(block, BulletList) and len(block.items) > PDF_LIST_ITEMS:
            more = len(block.items) - PDF_LIST_ITEMS
            out.append(replace(block, items=block.items[:PDF_LIST_ITEMS]))
            out.append(Paragraph(text(f"… and {more} more on the web page."), css="muted small"))
        elif isinstance(block, Table):
            if len(block.columns) > PDF_TABLE_COLUMNS:
                continue
            tables += 1
            if tables <= max_tables:
                out.extend(capped([block], PDF_TABLE_ROWS))
        else:
            out.append(block)
    return out


def figure_sections(cover: dict, typed) -> list[dict]:
    """The engine sections and their figures. A run's results never change and the cover holds
    a copy of them, so the figures the worker stored on the run when it finished are the ones
    the snapshot gives (measured: building them is ~0.5-1 s of a report on the 2-core dev
    machine); built from the snapshot once the run is gone."""
    run = covered_run(cover)
    return run_figure_sections(run, typed) if run is not None else run_sections(typed)


def engine_sections(cover: dict, *, for_pdf: bool = False) -> list[dict]:
    typed = parse_results(cover["results"])
    if typed is None:
        return []
    blocks = section_blocks(typed)
    sections = []
    for section in figure_sections(cover, typed):
        own = blocks.get(section["key"], [])
        if for_pdf:
            more = len(section["figures"]) - PDF_FIGURES_PER_SECTION
            section = {
                **section,
                "figures": section["figures"][:PDF_FIGURES_PER_SECTION],
                "more_figures": max(0, more),
            }
            limit = PDF_TABLES_BY_SECTION.get(section["key"], PDF_TABLES_PER_SECTION)
            sections.append({**section, "blocks": digest(own, limit)})
        else:
            sections.append({**section, "blocks": capped(own), "more_figures": 0})
    return sections


def report_context(report, *, for_pdf: bool = False) -> dict:
    covers = report.covers
    roadmap = roadmap_context(report.roadmap)
    sections = engine_sections(covers[0], for_pdf=for_pdf)
    roadmap_result = roadmap["result"] if roadmap else None
    all_assumptions = assumptions(covers, roadmap_result)
    contents = [
        ("summary", "Executive summary"),
        ("headline", "Headline comparison"),
        ("roadmap", "Roadmap"),
        *[(f"engine-{s['key']}", s["title"]) for s in sections],
        ("findings", "Findings to act on"),
        ("diff", "Changes since the previous report"),
        ("signoff", "Sign-off"),
        ("sources", "Assumptions and sources"),
    ]
    return {
        "report": report,
        "covers": covers,
        "baseline": report.baseline,
        "names": [c["design_name"] for c in covers],
        "comparison": comparison(covers),
        "stacks": covers_stacks(covers),
        "roadmap": roadmap,
        "sections": sections,
        "findings": findings(covers)[:PDF_FINDINGS] if for_pdf else findings(covers),
        "diff": diff_with_previous(report),
        "sources": _capped_sources(sources(covers, roadmap_result), for_pdf),
        "assumptions": all_assumptions[:PDF_ASSUMPTIONS] if for_pdf else all_assumptions,
        "more_assumptions": len(all_assumptions) - PDF_ASSUMPTIONS if for_pdf else 0,
        "contents": contents,
        "signoffs": [(c, c.get("signoff")) for c in covers],
        "for_pdf": for_pdf,
    }


def _capped_sources(found: dict, for_pdf: bool) -> dict:
    if not for_pdf or len(found["items"]) <= PDF_SOURCES:
        return found
    extra = len(found["items"]) - PDF_SOURCES
    return {**found, "items": found["items"][:PDF_SOURCES], "more": found["more"] + extra}
