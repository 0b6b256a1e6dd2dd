"""Downloads of a run's physical plan: the full cable schedule (CSV / XLSX, generated from the
stored results, one row per link) and the DCIM bundle (NetBox CSV/YAML and Nautobot JSON with
the IPAM). Same callers as the network configs: signed-in users for runs their teams may see
(session or API token), a feed token for the runs of its one project; anything else 404."""

import csv
import itertools

from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import render

import models_engine
from studio.accounts.download_auth import token_readable
from studio.core.formula_guard import safe_cell
from studio.reports.export_views import _audit_feed_use
from studio.reports.network_export import _visible_run
from studio.reports.renderers import Column, Table, to_xlsx
from studio.runs.selectors import typed_results

CABLE_COLUMNS = (
    Column("site", "Site"),
    Column("network", "Network", definition="compute, frontend or storage fabric"),
    Column("link_class", "Link class", definition="node-leaf, leaf-spine, spine-core ..."),
    Column("a_device", "A device"),
    Column("a_port", "A port"),
    Column("a_rack", "A rack"),
    Column("b_device", "B device"),
    Column("b_port", "B port"),
    Column("b_rack", "B rack"),
    Column("speed_gbps", "Speed", "Gb/s"),
    Column("cable_type", "Cable type", definition="DAC / ACC / AEC / AOC or fibre with optics"),
    Column(
        "length_m",
        "Length",
        "m",
        definition="ordered length: the run between the racks plus the stated slack",
    ),
    Column(
        "length_class",
        "Length class",
        definition="same rack, same row, cross-row or cross-hall",
    ),
)


def _plan(request, pk: int):
    run, feed = _visible_run(request, pk)
    results = typed_results(run)
    if run is None or results is None or results.physical is None or results.fabric is None:
        raise Http404("No such run, or it has no physical plan")
    spec = models_engine.parse_design(run.revision.spec)
    return run, feed, spec, results


def _rows(spec, results):
    for site_id, c in models_engine.cable_schedule(
        spec, results.physical, results.fabric, results.network
    ):
        yield (
            site_id,
            c.network,
            c.link_class,
            c.a_device,
            c.a_port,
            c.a_rack,
            c.b_device,
            c.b_port,
            c.b_rack,
            c.speed_gbps,
            c.cable_type,
            c.length_m,
            c.length_class,
        )


class _Echo:
    def write(self, value):
        return value


@token_readable
def run_cable_schedule(request, pk: int, fmt: str):
    run, feed, spec, results = _plan(request, pk)
    _audit_feed_use(feed, run.revision.design.project, f"run {pk} cables.{fmt}")
    name = f"run-{pk}-cable-schedule.{fmt}"
    if fmt == "csv":
        writer = csv.writer(_Echo())
        lines = (writer.writerow(row) for row in _chain_header(_rows(spec, results)))
        response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    else:
        keys = [c.key for c in CABLE_COLUMNS]
        rows = [dict(zip(keys, row, strict=True)) for row in _rows(spec, results)]
        table = Table(f"Cable schedule, run {pk}", list(CABLE_COLUMNS), rows)
        response = HttpResponse(
            to_xlsx(table),
            content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        )
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "no-store"
    return response


def _chain_header(rows):
    yield [safe_cell(c.header) for c in CABLE_COLUMNS]
    yield from rows


@token_readable
def run_dcim_export(request, pk: int):
    run, feed, spec, results = _plan(request, pk)
    archive = models_engine.dcim_export_zip(spec, results.physical, results.fabric, results.network)
    _audit_feed_use(feed, run.revision.design.project, f"run {pk} dcim.zip")
    response = HttpResponse(archive, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="run-{pk}-dcim.zip"'
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response


PAGE_ROWS = 100


def run_cable_schedule_page(request, pk: int):
    """The cable schedule as a paged table (`?page=N`, PAGE_ROWS links a page), generated
    lazily: a page of a 16k-GPU design reads only the links up to it."""
    run, feed, spec, results = _plan(request, pk)
    total = sum(site.cable_links for site in results.physical.sites)
    pages = max(1, -(-total // PAGE_ROWS))
    try:
        page = min(max(1, int(request.GET.get("page", "1"))), pages)
    except ValueError:
        return HttpResponse(
            f"page: a whole number from 1 to {pages}",
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    start = (page - 1) * PAGE_ROWS
    rows = list(itertools.islice(_rows(spec, results), start, start + PAGE_ROWS))
    _audit_feed_use(feed, run.revision.design.project, f"run {pk} cable schedule page {page}")
    return render(
        request,
        "runs/cable_schedule.html",
        {
            "run": run,
            "columns": CABLE_COLUMNS,
            "rows": rows,
            "page": page,
            "pages": pages,
            "total": f"{total:,}",
            "first": f"{start + 1:,}",
            "last": f"{start + len(rows):,}",
        },
    )
