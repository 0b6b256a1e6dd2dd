"""The results sections built in Python (`studio.runs.sections`), checked against every example
design: the values in the tables and cards are the engines' own, formatted one way (thousands
separators, "—" for a missing value, units in every numeric column header), a multi-site design
gets one row per site, and the section templates only loop over the blocks."""

import json
import re
from dataclasses import fields, is_dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

import models_engine
from models_engine.engines.performance.result import SoftwareStackUsed
from studio.runs.sections import BUILDERS, section_blocks
from studio.runs.sections import cost as cost_section
from studio.runs.sections import fabric as fabric_section
from studio.runs.sections import performance as performance_section
from studio.runs.sections import security as security_section
from studio.runs.sections.blocks import Cards, Group, Paragraph, Table, plain
from studio.runs.sections.format import DASH, amount, count, number, percent, usd
from studio.runs.selectors import TypedResults, parse_results
from studio.runs.sites import site_table

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))
SECTION_TEMPLATES = sorted((ROOT / "frontend/templates/runs/sections").glob("_*.html"))


@pytest.fixture(scope="module", params=EXAMPLES, ids=[p.stem for p in EXAMPLES])
def typed(request) -> TypedResults:
    parsed = parse_results(models_engine.evaluate(json.loads(request.param.read_text())))
    assert parsed is not None
    return parsed


@pytest.fixture(scope="module")
def two_sites() -> TypedResults:
    path = ROOT / "examples" / "two-region-hierarchical.json"
    return parse_results(models_engine.evaluate(json.loads(path.read_text())))


def _run(pk: int = 7, design_pk: int = 3) -> SimpleNamespace:
    return SimpleNamespace(pk=pk, revision=SimpleNamespace(design=SimpleNamespace(pk=design_pk)))


def _walk(blocks):
    """Every block, groups opened."""
    for block in blocks:
        yield block
        if isinstance(block, Group):
            yield from _walk(block.blocks)


def _tables(blocks) -> dict[str, Table]:
    return {block.id: block for block in _walk(blocks) if isinstance(block, Table)}


def _cards(blocks) -> dict[str, object]:
    return {
        card.label: card
        for block in _walk(blocks)
        if isinstance(block, Cards)
        for card in block.cards
    }


def _strings(value):
    """Every string a block holds (what the templates print)."""
    if isinstance(value, str):
        yield value
    elif is_dataclass(value):
        for f in fields(value):
            yield from _strings(getattr(value, f.name))
        if hasattr(value, "caption") and isinstance(value.caption, str):
            yield value.caption
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def test_formatting_is_one_way():
    assert number(1234.5, 1) == "1,234.5"
    assert number(None) == DASH
    assert number(2.50, 2, trim=True) == "2.5"
    assert count(16384) == "16,384"
    assert percent(0.4312) == "43.1 %"
    assert usd(1_500_000) == "$1,500,000"
    assert usd(None) == DASH
    assert amount(0) == "0"
    assert amount(0.0123) == "0.012"
    assert amount(0.0048) == "0.0048"
    assert amount(248.8) == "249"


def test_every_section_is_built_and_every_numeric_column_has_a_unit(typed):
    blocks = section_blocks(typed, _run())
    assert list(blocks) == list(BUILDERS)
    for key, section in blocks.items():
        assert section, key
        for table in _tables(section).values():
            assert table.id
            for column in table.columns:
                if column.numeric:
                    assert column.unit, f"{key} {table.id}: {column.label} has no unit"
                    assert column.header.endswith(f"({column.unit})")
            for row in table.rows:
                assert len(row.cells) == len(table.columns), table.id
        if key != "security":  # check evidence quotes the spec, where None is a value
            printed = " ".join(_strings(section))
            assert "None" not in printed, f"{key}: a missing value printed as None"


def test_fabric_tables_hold_the_engines_values(typed):
    fabric = typed.fabric
    tables = _tables(fabric_section.blocks(typed, _run()))
    bom = tables["fabric-bom"]
    assert len(bom.rows) == len(fabric.bom)
    assert bom.column_values("quantity") == [count(line.quantity) for line in fabric.bom]
    assert bom.column_values("total price") == [
        "no price" if line.total_price_usd is None else count(line.total_price_usd)
        for line in fabric.bom
    ]
    assert bom.column_values("unit power, typical") == [
        DASH if line.unit_power_w is None else number(line.unit_power_w, 1, trim=True)
        for line in fabric.bom
    ]
    assert bom.totals_value("total power, typical") == count(fabric.power_w.total_typical_w)
    unpriced = len(fabric.price_usd.items_without_price)
    total = bom.totals_value("total price")
    # An unpriced line is counted, never folded into the total as a zero.
    if unpriced == len(fabric.bom):
        assert total == "no price"
    else:
        assert total.startswith(count(fabric.price_usd.known_total))
        assert (f"+ {unpriced} unpriced" in total) == (unpriced > 0)
    site_column = len(fabric.sites) > 1 or fabric.wan is not None
    assert ("site" in [c.label for c in bom.columns]) == site_column
    cards = _cards(fabric_section.blocks(typed))
    assert cards["Switches per tier"].value == count(fabric.sites[0].scale_out.switches.total)


def test_only_a_multi_site_design_has_sites_tables_and_site_headings(typed):
    multi_site = len(typed.fabric.sites) > 1
    assert (site_table(typed, "fabric-sites") is not None) == multi_site
    for key in ("fabric", "facility", "storage"):
        blocks = BUILDERS[key](typed)
        assert (f"{key}-sites" in _tables(blocks)) == multi_site
        site_blocks = [b for b in blocks if getattr(b, "id", "").startswith(f"{key}-site-")]
        assert bool(site_blocks) == multi_site


def test_multi_site_tables_have_one_row_per_site(two_sites):
    fabric, facility = two_sites.fabric, two_sites.facility
    assert len(fabric.sites) == 2
    table = site_table(two_sites, "fabric-sites")
    assert [plain(row.cells[0].text) for row in table.rows] == [
        f"{site.site_id} {site.site_name}" for site in fabric.sites
    ]
    assert table.column_values("leaf switches") == [
        count(site.scale_out.switches.leaf) for site in fabric.sites
    ]
    assert table.column_values("IT power") == [
        count(facility.site(site.site_id).power.it_kw.total) for site in fabric.sites
    ]
    assert table.totals_value("GPUs") == count(fabric.totals.gpus)
    assert table.totals_value("spine switches") == count(fabric.totals.switches.spine)
    assert table.totals_value("racks") == count(facility.totals.total_racks)
    assert table.totals_value("site") == "Total (2 sites)"
    for key in ("fabric", "facility"):
        blocks = BUILDERS[key](two_sites)
        assert len(_tables(blocks)[f"{key}-sites"].rows) == 2
        headings = [b.id for b in blocks if getattr(b, "id", "").startswith(f"{key}-site-")]
        assert headings == [f"{key}-site-{site.site_id}" for site in fabric.sites]
        figures = [b.id for b in blocks if isinstance(b, Cards)]
        assert figures == [f"{key}-key-figures", f"{key}-key-figures-{fabric.sites[1].site_id}"]
    storage = _tables(BUILDERS["storage"](two_sites))
    assert len(storage["storage-sites"].rows) == len(two_sites.storage.sites)
    assert {f"storage-tiers-{two_sites.storage.sites[1].site_id}", "storage-tiers"} <= set(storage)


def test_wan_links_and_the_job_step_with_the_wan(two_sites):
    wan = two_sites.fabric.wan
    links = _tables(fabric_section.blocks(two_sites))["fabric-wan-links"]
    assert links.column_values("bandwidth") == [count(link.bandwidth_gbps) for link in wan.links]
    assert links.column_values("fibre route, from RTT") == [
        count(link.fibre_km_estimate) for link in wan.links
    ]
    training = two_sites.regions.training
    paragraphs = {
        b.id: plain(b.text)
        for b in performance_section.blocks(two_sites)
        if isinstance(b, Paragraph)
    }
    line = paragraphs["job-step-with-wan"]
    assert f"{number(training.step_time_s, 3)} s" in line
    assert f"{number(training.wan_added_s_per_step, 3)} s" in line
    assert training.strategy in line


def test_the_software_stack_and_its_losses_are_named(typed):
    performance = typed.performance
    if performance is None or not performance.training:
        return
    paragraphs = {
        b.id: plain(b.text) for b in performance_section.blocks(typed) if isinstance(b, Paragraph)
    }
    line = paragraphs["software-stack"]
    stack = performance.software_stack
    assert stack.name in line
    for name, fraction in stack.losses_fraction_of_kernel_time.items():
        assert f"{name.replace('_', ' ')} {percent(fraction, 0)}" in line


def test_a_pipeline_run_every_few_micro_batches_is_named_in_the_layout_line():
    """workload.parallelism.pipeline_microbatches: each run of the schedule fills and drains
    the pipeline again, so the layout line says how often; the default says nothing."""
    doc = json.loads((ROOT / "examples" / "gb200-nvl72-multirack.json").read_text())

    def layout_line(per_run):
        doc["workload"]["parallelism"]["pipeline_microbatches"] = per_run
        results = parse_results(models_engine.evaluate(doc))
        return plain(performance_section.layout_paragraph(results.performance, False).text)

    assert "filled and drained every 8 micro-batches" in layout_line(8)
    assert "filled and drained" not in layout_line(None)


def _megatron_core_stack(**options) -> SoftwareStackUsed:
    """The Megatron-Core H100 stack as a result names it, with the given options."""
    return SoftwareStackUsed(
        name="megatron-core-te-2024",
        chosen_by="workload",
        attention_backend="cudnn",
        tp_comm_overlap=True,
        dp_comm_overlap=True,
        losses_fraction_of_kernel_time={"kernel_launch_gaps": 0.053},
        kernel_source="measured",
        calibration="fitted",
        **options,
    )


@pytest.mark.parametrize(
    ("recipe", "phrase"),
    [
        ("current", "FP8 current scaling"),
        ("delayed", "FP8 delayed scaling"),
        (None, None),
    ],
)
def test_an_fp8_runs_scaling_recipe_is_named_and_other_runs_say_nothing(recipe, phrase):
    """software_stack.fp8_recipe: the FP8 recipe sets the fixed time per FP8 GEMM, so the
    stack line names it; a BF16 run (recipe None) mentions no scaling at all."""
    stack = _megatron_core_stack(fp8_recipe=recipe)
    line = plain(performance_section.stack_paragraph(stack).text)
    if phrase is None:
        assert "scaling" not in line
    else:
        assert phrase in line


def test_regions_tables(typed):
    regions = typed.regions
    tables = _tables(BUILDERS["regions"](typed))
    assert len(tables["regions-sites"].rows) == len(regions.sites)
    assert tables["regions-sites"].column_values("GPUs") == [
        count(s["gpus"]) for s in regions.sites
    ]
    assert ("regions-wan-links" in tables) == bool(regions.wan_links)
    if regions.cross_region:
        strategies = tables["regions-strategies"]
        chosen = [row for row in strategies.rows if row.css == "rc-chosen"]
        assert len(chosen) == 1
        assert plain(chosen[0].cells[0].text).startswith(regions.cross_region["strategy_chosen"])


def test_reliability_tables(typed):
    reliability = typed.reliability
    blocks = BUILDERS["reliability"](typed)
    blast = _tables(blocks)["reliability-blast-radius"]
    assert blast.column_values("failure domain") == [
        d["domain"] for d in reliability.failure_domains
    ]
    assert blast.column_values("GPUs lost") == [
        count(d["gpus_lost"]) for d in reliability.failure_domains
    ]
    cards = _cards(blocks)
    assert ("Optimal checkpoint interval" in cards) == bool(reliability.checkpoint)
    assert cards["Goodput"].value == number(reliability.goodput * 100, 2)


def test_cost_cards_and_tables(typed):
    cost = typed.cost
    blocks = cost_section.blocks(typed, _run())
    cards = _cards(blocks)
    assert cards["Capex"].value == usd(cost.summary.capex_usd)
    assert cards["TCO (NPV)"].value == usd(cost.summary.tco_npv_usd)
    assert ("Cost per training run" in cards) == (cost.summary.training_run_cost_usd is not None)
    tables = _tables(blocks)
    terms = cost.cloud_comparison.get("terms") or []
    if terms:
        cloud = tables["cost-cloud-terms"]
        assert len(cloud.rows) == len(terms) + 1  # the owned build first
        assert cloud.column_values("price")[1:] == [number(t["usd_per_gpu_hour"], 2) for t in terms]
    assert ("cost-unpriced-items" in tables) == bool(cost.unpriced_items)
    sites = [s for s in cost.by_site if s.site_id]
    if len(sites) > 1:
        assert tables["cost-by-site"].totals_value("capex") == count(cost.summary.capex_usd)
    download = [b for b in blocks if isinstance(b, Paragraph) and b.css == "rc-downloads"]
    assert reverse("export-run-table", args=[7, "cost-by-year", "csv"]) in str(download[0].text)


def test_missing_values_print_a_dash(two_sites):
    cost = two_sites.cost
    without = cost.model_copy(
        update={"summary": cost.summary.model_copy(update={"water_m3_per_year": None})}
    )
    cards = _cards(cost_section.blocks(TypedResults(cost=without)))
    assert cards["Water"].value == DASH
    line = two_sites.fabric.bom[0].model_copy(update={"unit_power_w": None, "catalog_id": None})
    row = fabric_section.bom_row(line, site_column=False)
    assert row[1].text == DASH  # no catalog id
    assert row[4].text == DASH  # no unit power


def test_security_findings_carry_the_accept_risk_form(typed):
    security = typed.security
    run = _run()
    table = _tables(security_section.blocks(typed, run))["security-findings"]
    to_act_on = [c for c in security.checks if c["status"] in ("FAIL", "ACCEPTED_RISK")]
    assert len(table.rows) == len(to_act_on)
    action = reverse("design-accept-risk", args=[3])
    for row in table.rows:
        form = row.cells[-1].form
        if row.css == "status-fail":
            assert form.action == action and form.run_pk == 7
            assert plain(row.cells[0].text).startswith(form.check_id)
        else:
            assert form is None
    without_run = _tables(security_section.blocks(typed))["security-findings"]
    assert all(row.cells[-1].form is None for row in without_run.rows)


def test_the_accept_risk_form_renders_for_editors_only(typed):
    if not any(c["status"] == "FAIL" for c in typed.security.checks):
        pytest.skip("nothing fails")
    run = _run()
    context = {"run": run, "section_blocks": section_blocks(typed, run)}
    editor = render_to_string("runs/sections/_security.html", {**context, "can_edit": True})
    assert 'tr class="status-fail"' in editor
    assert f'action="{reverse("design-accept-risk", args=[3])}"' in editor
    for field in ('name="check_id"', 'name="run" value="7"', 'name="reason"', 'name="owner"'):
        assert field in editor
    assert 'type="date" name="expires"' in editor
    viewer = render_to_string("runs/sections/_security.html", {**context, "can_edit": False})
    assert 'name="check_id"' not in viewer


def test_section_templates_only_loop_over_blocks():
    assert len(SECTION_TEMPLATES) == len(BUILDERS)
    for path in SECTION_TEMPLATES:
        source = path.read_text()
        assert len(re.findall(r"{%\s*if\b", source)) <= 3, path.name
        assert max(len(line) for line in source.splitlines()) <= 160, path.name
        assert not re.search(r"{%\s*with\s+\w\s*=", source), f"{path.name}: one-letter alias"


@pytest.mark.parametrize(
    ("backend", "phrase"),
    [("cudnn", "cuDNN fused attention"), ("flex", "FlexAttention (compiled PyTorch)")],
)
def test_the_stack_line_names_the_attention_kernel(backend, phrase):
    stack = SoftwareStackUsed(
        name="torchtitan",
        chosen_by="workload",
        attention_backend=backend,
        tp_comm_overlap=False,
        dp_comm_overlap=True,
        losses_fraction_of_kernel_time={"kernel_launch_gaps": 0.05},
        kernel_source="measured",
        calibration="fitted",
    )
    assert phrase in plain(performance_section.stack_paragraph(stack).text)


@pytest.mark.parametrize(("share", "phrase"), [(0.3655, "36.55 %"), (None, "combined 1F1B)")])
def test_the_stack_line_says_how_much_of_the_expert_all_to_all_the_overlap_hides(share, phrase):
    """Combined 1F1B hides only the measured concurrent share of the paired all-to-all; the
    line says so with the engine's number (results stored before it carry none)."""
    stack = _megatron_core_stack(ep_comm_overlap=True, ep_comm_concurrent_share=share)
    text = plain(performance_section.stack_paragraph(stack).text)
    assert "partly overlapped" in text and phrase in text
