"""The "define a sweep" form: up to AXIS_ROWS axes (a spec path and its values), the
constraints and the objectives; it builds the engine's sweep definition (a dict) that the
service validates."""

import math
import re

from django import forms

import models_engine

AXIS_ROWS = 6
RANGE = re.compile(
    r"^\s*(?P<start>[-+0-9.eE]+)\s*\.\.\s*(?P<stop>[-+0-9.eE]+)\s*/\s*(?P<n>\d+)\s*$"
)
VALUES_HELP = "a list (128, 256, 512 or h100-sxm-80gb, h200-sxm-141gb) or a range start..stop/count"
OBJECTIVE_CHOICES = [
    ("tco", "minimise TCO (USD, NPV)"),
    ("time_to_train", "minimise time to train (days)"),
    ("cost_per_run", "minimise cost per training run (USD)"),
    ("carbon", "minimise carbon (tCO2e/year)"),
    ("goodput", "maximise goodput"),
]
LEAF_TYPES = (int, float, str, bool)
NOT_SWEPT = ("name", "description", "spec_version")


def sweepable_paths(base_doc: dict) -> list[str]:
    """Spec paths of the base design's single values, plus the vectorised inputs (which the
    base design may leave null)."""
    paths = [
        path
        for path, value in models_engine.flatten_spec(base_doc).items()
        if isinstance(value, LEAF_TYPES) and not path.endswith(NOT_SWEPT) and ".id" not in path
    ]
    extra = ["economics.utilisation", "economics.price_overrides.power_usd_per_kwh", "facility.pue"]
    return sorted(set(paths) | set(extra))


def _scalar(text: str):
    text = text.strip()
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for cast in (int, float):
        try:
            value = cast(text)
        except ValueError:
            continue
        if isinstance(value, float) and not math.isfinite(value):
            raise forms.ValidationError(f"{text!r} is not a finite number")
        return value
    return text


def parse_values(text: str) -> dict:
    """{"values": [...]} or {"range": {...}} from the form's text."""
    match = RANGE.match(text)
    if match:
        start, stop = _scalar(match["start"]), _scalar(match["stop"])
        if not all(isinstance(v, int | float) for v in (start, stop)):
            raise forms.ValidationError(f"a range takes numbers: {VALUES_HELP}")
        integer = isinstance(start, int) and isinstance(stop, int)
        return {
            "range": {"start": start, "stop": stop, "count": int(match["n"]), "integer": integer}
        }
    values = [_scalar(part) for part in text.split(",") if part.strip()]
    if not values:
        raise forms.ValidationError(f"give {VALUES_HELP}")
    return {"values": values}


class SweepForm(forms.Form):
    name = forms.CharField(max_length=120, required=False)
    max_time_to_train_days = forms.FloatField(
        required=False, min_value=0.001, label="Time to train at most (days)"
    )
    max_facility_power_mw = forms.FloatField(
        required=False, min_value=0.001, label="Facility power at most (MW)"
    )
    max_capex_usd = forms.FloatField(required=False, min_value=1, label="Capex at most (USD)")
    min_security_score_pct = forms.FloatField(
        required=False, min_value=0, max_value=100, label="Security score at least (%)"
    )
    memory_must_fit = forms.BooleanField(
        required=False, initial=True, label="Must fit in GPU memory"
    )
    objectives = forms.MultipleChoiceField(
        choices=OBJECTIVE_CHOICES,
        widget=forms.CheckboxSelectMultiple,
        initial=["tco", "time_to_train"],
    )

    def __init__(self, *args, paths: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        choices = [("", "— no axis —")] + [(p, p) for p in paths]
        for row in range(AXIS_ROWS):
            self.fields[f"axis_{row}_path"] = forms.ChoiceField(choices=choices, required=False)
            self.fields[f"axis_{row}_values"] = forms.CharField(
                required=False, max_length=20_000, help_text=VALUES_HELP if row == 0 else ""
            )

    def axis_rows(self):
        return [(self[f"axis_{r}_path"], self[f"axis_{r}_values"]) for r in range(AXIS_ROWS)]

    def clean(self):
        cleaned = super().clean()
        axes = []
        self.axis_row_of = []  # the form row of each axis in the definition
        for row in range(AXIS_ROWS):
            path = cleaned.get(f"axis_{row}_path")
            text = cleaned.get(f"axis_{row}_values", "")
            if not path and not text:
                continue
            if not path:
                self.add_error(f"axis_{row}_path", "pick the spec path these values are for")
                continue
            try:
                axes.append({"path": path, **parse_values(text)})
                self.axis_row_of.append(row)
            except forms.ValidationError as exc:
                self.add_error(f"axis_{row}_values", exc)
        if not axes and not self.errors:
            self.add_error("axis_0_path", "sweep at least one spec path")
        cleaned["definition"] = {
            "axes": axes,
            "constraints": {
                key: cleaned.get(key)
                for key in (
                    "max_time_to_train_days",
                    "max_facility_power_mw",
                    "max_capex_usd",
                    "min_security_score_pct",
                )
            }
            | {"memory_must_fit": bool(cleaned.get("memory_must_fit"))},
            "objectives": cleaned.get("objectives") or [],
        }
        return cleaned

    def add_service_errors(self, errors: dict[str, list[str]]) -> None:
        """The service's errors on the form field they concern (axes.N -> that row)."""
        for field, messages in errors.items():
            parts = field.split(".")
            rows = getattr(self, "axis_row_of", [])
            if (
                parts[0] == "axes"
                and len(parts) > 1
                and parts[1].isdigit()
                and int(parts[1]) < len(rows)
            ):
                row = rows[int(parts[1])]
                kind = "values" if "values" in parts or "range" in parts else "path"
                target = f"axis_{row}_{kind}"
            elif parts[0] == "constraints" and len(parts) > 1 and parts[1] in self.fields:
                target = parts[1]
            elif parts[0] == "objectives":
                target = "objectives"
            else:
                target = None
            for message in messages:
                self.add_error(target, message)
