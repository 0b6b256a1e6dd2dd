"""What-ifs in presenting mode: change a few key inputs of a design's latest revision and
re-evaluate it synchronously, without saving, through the engine's public `evaluate_headline`
(the engines the headline reads: the same figures a full run reports; well under a second on
the 16K-GPU example, benchmarks/bench_what_if.py); "save as revision" then stores exactly one
revision whose message records the what-if.

The controls: GPU count, GPU SKU, the scale-out oversubscription of the top switch tier, the
share of GPUs at the first site (the other sites keep their proportions), the checkpoint
interval ("auto" = the Young/Daly optimum), and utilisation."""

import copy
from dataclasses import dataclass

from models_engine import SpecValidationError, evaluate_headline
from studio.catalog.selectors import team_catalog, team_catalog_entries
from studio.designs import services as design_services
from studio.designs.models import Design, DesignRevision
from studio.designs.selectors import live_accepted_risks
from studio.reviews.formatting import metric_text
from studio.runs.headline import headline_changes

# What-if control -> the spec path it sets (and how the form names it).
CONTROLS = {
    "gpu_count": "compute.gpu_count",
    "gpu_sku": "compute.gpu_sku",
    "oversubscription": "fabric.oversubscription.spine",
    "site_share": "regions.sites.0.gpu_share",
    "checkpoint_interval_min": "storage.checkpoint.interval_min",
    "utilisation": "economics.utilisation",
}
PATH_TO_CONTROL = {path: name for name, path in CONTROLS.items()}


class WhatIfInvalid(ValueError):
    """{control: message}: what the engine said about the changed inputs."""

    def __init__(self, errors: dict[str, str]):
        self.errors = errors
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))


@dataclass(frozen=True)
class WhatIf:
    base: DesignRevision
    spec: dict
    changes: list[tuple[str, object, object]]  # (spec path, before, after)
    headline: dict

    @property
    def message(self) -> str:
        parts = [f"{path} {before} → {after}" for path, before, after in self.changes]
        return (f"What-if from r{self.base.number}: " + "; ".join(parts))[:500]


def _get(spec: dict, path: str):
    value = spec
    for part in path.split("."):
        value = value[int(part)] if isinstance(value, list) else value.get(part)
        if value is None:
            return None
    return value


def current_inputs(spec: dict) -> dict:
    """The controls' values in this spec (None: the control does not apply, e.g. one site)."""
    values = {name: _get(spec, path) for name, path in CONTROLS.items()}
    if len(spec.get("regions", {}).get("sites", [])) < 2:
        values["site_share"] = None
    return values


def gpu_choices(team_id: int) -> list[tuple[str, str]]:
    gpus = team_catalog(team_id).as_dict()["gpus"]
    return sorted(
        ((gpu_id, entry.get("name", gpu_id)) for gpu_id, entry in gpus.items()), key=lambda c: c[1]
    )


def _split_sites(spec: dict, share: float) -> float:
    """The first site gets `share` of the GPUs, rounded to whole nodes (the engine refuses a
    site with part of a node); the others keep their proportions of the rest, also in whole
    nodes (largest remainder). Returns the first site's share as applied."""
    sites = spec["regions"]["sites"]
    nodes = spec["compute"]["gpu_count"] // spec["compute"]["gpus_per_node"]
    first = min(max(round(share * nodes), 1), nodes - (len(sites) - 1))
    others = [site["gpu_share"] for site in sites[1:]]
    weights = [w / sum(others) if sum(others) else 1 / len(others) for w in others]
    exact = [(nodes - first) * w for w in weights]
    counts = [int(x) for x in exact]
    by_remainder = sorted(range(len(exact)), key=lambda i: exact[i] - counts[i], reverse=True)
    for i in by_remainder[: nodes - first - sum(counts)]:
        counts[i] += 1
    for site, count in zip(sites, [first, *counts], strict=True):
        site["gpu_share"] = count / nodes
    return first / nodes


def applied(spec: dict, inputs: dict) -> tuple[dict, list[tuple[str, object, object]]]:
    """A copy of the spec with the inputs that differ applied, and the list of changes."""
    result = copy.deepcopy(spec)
    current = current_inputs(spec)
    changes = []
    for name, value in inputs.items():
        if value is None or value == current.get(name):
            continue
        path = CONTROLS[name]
        if name == "site_share":
            changes.append((path, current.get(name), round(_split_sites(result, value), 4)))
            continue
        changes.append((path, current.get(name), value))
        if name == "gpu_sku":
            # The system (server) is tied to its GPU: the new SKU's own default applies.
            result["compute"].pop("system_sku", None)
        node = result
        *parents, leaf = path.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return result, changes


def _errors(exc: SpecValidationError) -> dict[str, str]:
    errors: dict[str, str] = {}
    for error in exc.errors:
        control = PATH_TO_CONTROL.get(error["path"], "__all__")
        errors.setdefault(
            control,
            f"{error['path']}: {error['message']}" if control == "__all__" else error["message"],
        )
    return errors


def what_if(design: Design, inputs: dict) -> WhatIf:
    """Evaluate the design's latest revision with `inputs` applied (nothing is saved)."""
    base = design.latest_revision
    spec, changes = applied(base.spec, inputs)
    try:
        headline = evaluate_headline(
            spec,
            catalog_entries=team_catalog_entries(design.project.team_id),
            accepted_risks=live_accepted_risks(design),
        )
    except SpecValidationError as exc:
        raise WhatIfInvalid(_errors(exc)) from exc
    except (ValueError, ArithmeticError) as exc:  # the engines' "cannot build this design"
        raise WhatIfInvalid({"__all__": str(exc)}) from exc
    return WhatIf(base=base, spec=spec, changes=changes, headline=headline)


def compared_rows(before: dict, after: dict) -> list[dict]:
    """Each headline metric before and with the what-if, written out, with the change."""
    rows = []
    for change in headline_changes(before, after):
        metric = change["metric"]
        if metric.key == "sites" and change["old"] == change["new"] == 1:
            continue
        relative = change["relative_pct"]
        rows.append(
            {
                "key": metric.key,
                "label": metric.label,
                "before": metric_text(change["old"], metric),
                "after": metric_text(change["new"], metric),
                "change": _change_text(relative),
                # A change under 0.1 % is not called better or worse.
                "improved": change["improved"] if relative and abs(relative) >= 0.05 else None,
            }
        )
    return rows


def _change_text(relative_pct: float | None) -> str:
    if not relative_pct:
        return ""
    return f"{relative_pct:+.1f} %" if abs(relative_pct) >= 0.05 else "< 0.1 %"


def save_as_revision(*, actor, design: Design, inputs: dict) -> DesignRevision:
    """Exactly one new revision holding the what-if (re-evaluated first: an input the engine
    refuses is not saved); its message records what changed."""
    result = what_if(design, inputs)
    if not result.changes:
        raise WhatIfInvalid({"__all__": "nothing to save: no input differs from the revision"})
    return design_services.design_revision_create(
        actor=actor, design=design, spec=result.spec, message=result.message
    )
