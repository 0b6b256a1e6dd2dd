"""What a comment can be anchored to, and the anchored value at a revision.

An anchor is (kind, key) on one design: a spec field path (`fabric.oversubscription.spine`),
a headline metric key (`tco_usd`), a chart id, a BOM line (`item@site`) or a security finding
id. Anchors name things that exist in every revision, so a comment stays on its item when the
design gets a new revision; for spec fields and headline numbers the value the commenter saw is
kept, and a later revision whose value differs shows "changed since"."""

from dataclasses import dataclass

from studio.designs.models import DesignRevision
from studio.reviews.models import AnchorKind
from studio.runs.headline import HEADLINE_METRICS
from studio.runs.selectors import TypedResults, latest_done_run, typed_results

HEADLINE_LABELS = {m.key: m.label for m in HEADLINE_METRICS}
MISSING = object()
# Kinds whose value is kept and compared across revisions.
TRACKED_KINDS = {AnchorKind.SPEC, AnchorKind.HEADLINE, AnchorKind.BOM, AnchorKind.FINDING}


class AnchorInvalid(ValueError):
    """The anchor names nothing in the design's revision; the message says what is allowed."""


@dataclass(frozen=True)
class RevisionView:
    """One revision with its latest finished run's typed results (None: not evaluated)."""

    revision: DesignRevision
    results: TypedResults | None

    @classmethod
    def of(cls, revision: DesignRevision) -> "RevisionView":
        return cls(revision, typed_results(latest_done_run(revision.runs.all())))


def spec_value(spec: dict, path: str):
    """The value at a dotted path (list items by index); MISSING when there is none."""
    value = spec
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return MISSING
    return value


def bom_key(line) -> str:
    return f"{line.item}@{line.site}" if line.site else line.item


def bom_lines(results: TypedResults | None) -> dict[str, object]:
    if results is None or results.fabric is None:
        return {}
    return {bom_key(line): line for line in results.fabric.bom}


def findings(results: TypedResults | None) -> dict[str, dict]:
    if results is None or results.security is None:
        return {}
    return {check["id"]: check for check in results.security.checks}


def anchor_value(view: RevisionView, kind: str, key: str):
    """The anchored item's value at this revision (MISSING: the item does not exist there,
    or the revision has no results to read it from)."""
    if kind == AnchorKind.SPEC:
        return spec_value(view.revision.spec, key)
    if kind == AnchorKind.HEADLINE:
        return view.results.headline.get(key, MISSING) if view.results else MISSING
    if kind == AnchorKind.BOM:
        line = bom_lines(view.results).get(key)
        return MISSING if line is None else {"quantity": line.quantity}
    if kind == AnchorKind.FINDING:
        check = findings(view.results).get(key)
        return MISSING if check is None else {"status": check["status"]}
    return None


def checked_anchor(view: RevisionView, kind: str, key: str):
    """The value to keep for a new comment's anchor; AnchorInvalid when it names nothing."""
    if kind == AnchorKind.GENERAL:
        return None
    if not key:
        raise AnchorInvalid("name the item the comment is about")
    if kind == AnchorKind.HEADLINE and key not in HEADLINE_LABELS:
        raise AnchorInvalid(f"one of the headline metrics: {', '.join(HEADLINE_LABELS)}")
    if kind == AnchorKind.CHART:
        return None  # chart ids are checked by the caller against the run's figures
    value = anchor_value(view, kind, key)
    if value is MISSING and kind == AnchorKind.SPEC:
        raise AnchorInvalid(f"no field {key!r} in r{view.revision.number}'s spec")
    if value is MISSING and kind in (AnchorKind.BOM, AnchorKind.FINDING):
        raise AnchorInvalid(f"no {AnchorKind(kind).label.lower()} {key!r} in the latest results")
    return None if value is MISSING else value


def changed_since(comment, latest: RevisionView | None) -> bool:
    """Whether the anchored value differs at the design's latest revision from what the
    commenter saw (only tracked kinds; an unevaluated latest revision is not "changed")."""
    if latest is None or comment.anchor_kind not in TRACKED_KINDS:
        return False
    if comment.revision_id == latest.revision.pk:
        return False
    now = anchor_value(latest, comment.anchor_kind, comment.anchor_key)
    if now is MISSING:
        return comment.anchor_kind == AnchorKind.SPEC and comment.anchor_value is not None
    return now != comment.anchor_value


def anchor_label(kind: str, key: str) -> str:
    if kind == AnchorKind.HEADLINE:
        return HEADLINE_LABELS.get(key, key)
    if kind == AnchorKind.GENERAL:
        return "General"
    return key
