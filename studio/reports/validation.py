"""The validation panel: every published reference the engines are checked against, read from
the engine's validation table (`models_engine.validation_table`, built once per process), with
filters, per-engine and per-family summaries (fitted vs check-only) and two charts. Nothing here
computes an error: every number is the table's."""

from collections import Counter
from dataclasses import dataclass

import plotly.graph_objects as go

from models_engine import GRADE_RULES, Reference, ValidationTable, table_of, validation_table
from studio.runs.charts.common import base_layout, figure_entry
from studio.runs.sections.format import DASH, amount, percent, signed_percent

FILTERS = ("engine", "family", "quantity", "role", "gpu", "model_class", "ids")
ROLES = ("fit", "check")
ROLE_COLOURS = {"fit": "#98a2b3", "check": "#1570ef"}
ROLE_NAMES = {"fit": "fitted", "check": "check-only"}


class FilterError(ValueError):
    """Filter values the table has no reference for: {parameter: [what is allowed]}."""

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__(errors)
        self.errors = errors


@dataclass(frozen=True)
class Selection:
    engine: str = ""
    family: str = ""
    quantity: str = ""
    role: str = ""
    gpu: str = ""  # GPU generation (catalog architecture)
    model_class: str = ""  # "dense" or "moe" (references that depend on the model: step times)
    ids: tuple[str, ...] = ()

    def keeps(self, ref: Reference) -> bool:
        return (
            (not self.engine or ref.engine == self.engine)
            and (not self.family or ref.family == self.family)
            and (not self.quantity or ref.quantity == self.quantity)
            and (not self.role or ref.role == self.role)
            and (not self.gpu or ref.gpu_architecture == self.gpu)
            and (not self.model_class or ref.model_class == self.model_class)
            and (not self.ids or ref.id in self.ids)
        )

    @property
    def active(self) -> bool:
        filters = (self.engine, self.family, self.quantity, self.role, self.gpu, self.model_class)
        return any((*filters, self.ids))


def choices(table: ValidationTable) -> dict[str, list[str]]:
    refs = table.references
    return {
        "engine": sorted({r.engine for r in refs}),
        "family": sorted({r.family for r in refs}),
        "quantity": sorted({r.quantity for r in refs}),
        "role": list(ROLES),
        "gpu": sorted({r.gpu_architecture for r in refs if r.gpu_architecture}),
        "model_class": sorted({r.model_class for r in refs if r.model_class}),
    }


def filter_fields(selection: Selection, table: ValidationTable) -> list[dict]:
    """The filter form's selects, with the chosen option marked."""
    return [
        {
            "name": name,
            "options": [{"value": o, "selected": o == getattr(selection, name)} for o in options],
        }
        for name, options in choices(table).items()
    ]


def parse_selection(params, table: ValidationTable) -> Selection:
    """The filters of a query string; a value no reference has is a FilterError naming the
    parameter and what it allows, and so is a parameter that is no filter."""
    allowed = choices(table)
    errors: dict[str, list[str]] = {}
    unknown = sorted(set(params) - set(FILTERS))
    for name in unknown:
        errors[name] = [f"not a filter of the validation table; filters: {', '.join(FILTERS)}"]
    values = {}
    for name, options in allowed.items():
        value = (params.get(name) or "").strip()
        if value and value not in options:
            errors[name] = [f"{value!r} is not one of: {', '.join(options)}"]
        values[name] = value
    ids = tuple(i for i in (params.get("ids") or "").split(",") if i.strip())
    known = {r.id for r in table.references}
    missing = [i for i in ids if i not in known]
    if missing:
        errors["ids"] = [f"no reference with id {', '.join(missing[:5])}"]
    if errors:
        raise FilterError(errors)
    return Selection(**values, ids=ids)


def _stats(stats) -> dict:
    return {
        "n": stats.n,
        "median": percent(stats.median),
        "p90": percent(stats.p90),
        "max": percent(stats.max),
        "bias": signed_percent(stats.bias),
    }


def summary_rows(summaries) -> list[dict]:
    return [
        {
            "name": s.name,
            "engine": s.engine,
            "references": s.references,
            "not_expressible": s.not_expressible,
            "fitted": _stats(s.fitted),
            "check": _stats(s.check),
        }
        for s in summaries
    ]


def reference_rows(refs: list[Reference]) -> list[dict]:
    return [
        {
            "ref": r,
            "role": ROLE_NAMES[r.role],
            "published": f"{amount(r.published)} {r.unit}",
            "model": f"{amount(r.model)} {r.unit}" if r.model is not None else DASH,
            "error": signed_percent(r.error),
            "bad": r.error is not None and abs(r.error) > 0.2,
            "gpus": f"{r.gpus:,}" if r.gpus else "",
        }
        for r in refs
    ]


def scatter_figure(quantity: str, refs: list[Reference]) -> go.Figure | None:
    """Engine vs published for one quantity, in its unit (log axes when it spans more than a
    decade: step times run from 0.1 s to minutes), with the y = x line; one trace per role."""
    scored = [r for r in refs if r.scored and r.quantity == quantity]
    if not scored:
        return None
    unit = scored[0].unit
    figure = go.Figure()
    for role in ROLES:
        points = [r for r in scored if r.role == role]
        if not points:
            continue
        figure.add_trace(
            go.Scatter(
                x=[r.published for r in points],
                y=[r.model for r in points],
                mode="markers",
                name=ROLE_NAMES[role],
                marker={"color": ROLE_COLOURS[role], "size": 8, "opacity": 0.8},
                text=[f"{r.id}<br>error {r.error:+.1%}" for r in points],
                hovertemplate=(
                    f"%{{text}}<br>published %{{x:.4g}} {unit}<br>engine %{{y:.4g}} {unit}"
                    "<extra></extra>"
                ),
            )
        )
    low = min(min(r.published, r.model) for r in scored)
    high = max(max(r.published, r.model) for r in scored)
    figure.add_trace(
        go.Scatter(
            x=[low, high],
            y=[low, high],
            mode="lines",
            name="y = x (no error)",
            line={"color": "#475467", "dash": "dash", "width": 1},
            hoverinfo="skip",
        )
    )
    axis_type = "log" if low > 0 and high / low > 10 else "linear"
    figure.update_layout(
        **base_layout(
            f"{quantity[0].upper()}{quantity[1:]}: engine vs published",
            xaxis={"title": f"published ({unit})", "type": axis_type},
            yaxis={"title": f"engine ({unit})", "type": axis_type},
        ),
        height=440,
    )
    return figure


def error_figure(refs: list[Reference]) -> go.Figure | None:
    """Distribution of the signed error, fitted and check-only overlaid."""
    scored = [r for r in refs if r.scored]
    if not scored:
        return None
    figure = go.Figure()
    for role in ROLES:
        errors = [r.error * 100 for r in scored if r.role == role]
        if errors:
            figure.add_trace(
                go.Histogram(
                    x=errors,
                    name=ROLE_NAMES[role],
                    marker={"color": ROLE_COLOURS[role]},
                    opacity=0.75,
                    xbins={"size": 2.5},
                )
            )
    figure.update_layout(
        **base_layout(
            "Error distribution",
            xaxis={"title": "engine / published - 1 (%)", "ticksuffix": " %"},
            # Whole references on the axis, about eight ticks at most.
            yaxis={"title": "references", "tick0": 0, "dtick": max(1, len(scored) // 8)},
        ),
        barmode="overlay",
        height=440,
    )
    return figure


def engine_rows(table: ValidationTable) -> list[dict]:
    """Per engine and quantity, each followed by its per-model-class rows (step times of
    dense and MoE models), marked `model_class` for the template."""
    rows = []
    for summary in table.by_engine:
        rows.append({**summary_rows([summary])[0], "model_class": False})
        classes = [s for s in table.by_model_class if s.name.startswith(f"{summary.name}, ")]
        rows.extend({**row, "model_class": True} for row in summary_rows(classes))
    return rows


def panel_context(selection: Selection, table: ValidationTable | None = None) -> dict:
    """What the validation page shows for a selection."""
    table = table or validation_table()
    refs = [r for r in table.references if selection.keeps(r)]
    selected = table_of(refs) if refs else None
    counts = Counter(r.quantity for r in refs if r.scored)
    quantities = sorted(counts, key=lambda q: (-counts[q], q))  # the largest set first
    drawn = [
        (f"validation-scatter-{index}", scatter_figure(quantity, refs))
        for index, quantity in enumerate(quantities)
    ]
    drawn.insert(0, ("validation-errors", error_figure(refs)))
    figures = [figure_entry(i, figure) for i, figure in drawn if figure is not None]
    return {
        "selection": selection,
        "filter_fields": filter_fields(selection, table),
        "overall": summary_rows([selected.overall])[0] if selected else None,
        "by_engine": engine_rows(selected) if selected else [],
        "by_family": summary_rows(selected.by_family) if selected else [],
        "references": reference_rows(refs),
        "figures": figures,
        "grade_rules": GRADE_RULES,
    }


def panel_json(selection: Selection, table: ValidationTable | None = None) -> dict:
    """The API's answer: the selected references and their summaries, as the engine gives them."""
    table = table or validation_table()
    refs = [r for r in table.references if selection.keeps(r)]
    selected = table_of(refs).as_dict()
    return {**selected, "grade_rules": GRADE_RULES}
