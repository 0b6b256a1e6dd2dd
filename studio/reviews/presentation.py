"""What the review and presenting pages show, built in Python from the typed engine results
and the review's rows; templates only loop and format."""

from dataclasses import dataclass, field

from studio.reviews.anchors import (
    MISSING,
    RevisionView,
    anchor_label,
    bom_key,
    changed_since,
    spec_value,
)
from studio.reviews.formatting import headline_rows
from studio.reviews.models import AnchorKind, ReviewRequest
from studio.reviews.selectors import review_states, review_status
from studio.reviews.whatif import CONTROLS
from studio.runs.figures import run_figure_sections, with_html
from studio.runs.sections.format import count, number, usd
from studio.runs.selectors import latest_done_run

# Spec fields shown on the review page with a comment affordance: the what-if inputs and the
# ones a board asks about; any other field can be named in the comment form.
KEY_SPEC_FIELDS = [
    "workload.parameters_b",
    "workload.tokens_to_train",
    "workload.precision",
    *CONTROLS.values(),
    "fabric.topology",
    "fabric.technology",
    "fabric.nic_speed_gbps",
    "facility.cooling",
    "facility.rack_power_limit_kw",
    "facility.pue",
    "economics.ownership",
    "economics.horizon_years",
]
BOM_LINES_SHOWN = 12
FINDINGS_SHOWN = 12
FAILING = {"FAIL", "MANUAL"}


@dataclass
class DesignPanel:
    state: object
    view: RevisionView | None
    headline: list[dict] = field(default_factory=list)
    spec_fields: list[dict] = field(default_factory=list)
    charts: list[dict] = field(default_factory=list)
    bom: list[dict] = field(default_factory=list)
    findings: list[dict] = field(default_factory=list)
    run: object = None
    what_if_form: object = None  # presenting mode only


def _spec_text(value) -> str:
    """A spec value as a reader reads it: 2,000,000,000,000 rather than 2000000000000.0."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return number(value, 4, trim=True)


def _spec_fields(spec: dict, extra: set[str]) -> list[dict]:
    rows = []
    for path in [*KEY_SPEC_FIELDS, *sorted(extra - set(KEY_SPEC_FIELDS))]:
        value = spec_value(spec, path)
        if value is not MISSING and not isinstance(value, dict | list):
            rows.append({"key": path, "text": _spec_text(value)})
    return rows


def _charts(run, view: RevisionView, per_section: int) -> list[dict]:
    if run is None or view.results is None:
        return []
    charts = []
    for section in run_figure_sections(run, view.results):
        for figure in section["figures"][:per_section]:
            charts.append({**with_html(figure), "section": section.get("title", "")})
    return charts


def _bom(view: RevisionView) -> list[dict]:
    if view.results is None or view.results.fabric is None:
        return []
    lines = sorted(view.results.fabric.bom, key=lambda line: -(line.total_price_usd or 0))
    return [
        {
            "key": bom_key(line),
            "item": line.item,
            "site": line.site or "",
            "quantity": count(line.quantity),
            "total": usd(line.total_price_usd) if line.total_price_usd is not None else "no price",
        }
        for line in lines[:BOM_LINES_SHOWN]
    ]


def _findings(view: RevisionView) -> list[dict]:
    if view.results is None or view.results.security is None:
        return []
    checks = [c for c in view.results.security.checks if c["status"] in FAILING]
    order = {"critical": 0, "high": 1, "medium": 2, "low": 3}
    checks.sort(key=lambda c: (order.get(c["severity"], 9), c["id"]))
    return [
        {
            "key": c["id"],
            "title": c.get("title", c["id"]),
            "severity": c["severity"],
            "status": c["status"],
        }
        for c in checks[:FINDINGS_SHOWN]
    ]


def design_panels(review: ReviewRequest, *, charts_per_section: int = 1) -> list[DesignPanel]:
    commented = {}
    for key, design_id in review.comments.filter(anchor_kind=AnchorKind.SPEC).values_list(
        "anchor_key", "design_id"
    ):
        commented.setdefault(design_id, set()).add(key)
    panels = []
    for state in review_states(review):
        if state.latest is None:
            panels.append(DesignPanel(state=state, view=None))
            continue
        run = latest_done_run(state.latest.runs.all())
        view = RevisionView.of(state.latest)
        panels.append(
            DesignPanel(
                state=state,
                view=view,
                run=run,
                headline=headline_rows(view.results.headline) if view.results else [],
                spec_fields=_spec_fields(state.latest.spec, commented.get(state.design.pk, set())),
                charts=_charts(run, view, charts_per_section),
                bom=_bom(view),
                findings=_findings(view),
            )
        )
    return panels


def threads(review: ReviewRequest) -> list[dict]:
    """Top-level comments with their replies, open ones first, each saying "changed since"
    when the anchored value differs at the design's latest revision."""
    comments = list(review.comments.select_related("author", "design", "revision", "resolved_by"))
    latest_views: dict[int, RevisionView | None] = {}

    def latest_of(design):
        if design is None:
            return None
        if design.pk not in latest_views:
            revision = design.latest_revision
            latest_views[design.pk] = RevisionView.of(revision) if revision else None
        return latest_views[design.pk]

    replies: dict[int, list] = {}
    for comment in comments:
        if comment.parent_id:
            replies.setdefault(comment.parent_id, []).append(comment)
    rows = [
        {
            "comment": c,
            "label": anchor_label(c.anchor_kind, c.anchor_key),
            "kind": c.get_anchor_kind_display(),
            "changed": changed_since(c, latest_of(c.design)),
            "replies": replies.get(c.pk, []),
        }
        for c in comments
        if c.parent_id is None
    ]
    rows.sort(key=lambda r: (r["comment"].resolved_at is not None, r["comment"].created_at))
    return rows


def live_context(review: ReviewRequest) -> dict:
    states = review_states(review)
    return {
        "review": review,
        "states": states,
        "status": review_status(states),
        "threads": threads(review),
        "verdicts": review.verdicts.select_related("reviewer", "design", "revision").order_by(
            "-created_at"
        )[:50],
    }
