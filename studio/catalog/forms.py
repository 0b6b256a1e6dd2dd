"""Forms of the catalog page: they parse what was typed; the services check the entry."""

from django import forms

from models_engine import KINDS
from studio.core.inputs import JsonInvalid, loads_json

MAX_ENTRY_CHARS = 100_000


class CatalogEntryForm(forms.Form):
    kind = forms.ChoiceField(choices=[(k, k) for k in KINDS])
    data = forms.CharField(
        strip=False,
        max_length=MAX_ENTRY_CHARS,
        error_messages={"required": "paste the entry as JSON"},
    )

    def clean_data(self):
        try:
            data = loads_json(self.cleaned_data["data"])
        except JsonInvalid as exc:
            raise forms.ValidationError(str(exc)) from exc
        if not isinstance(data, dict):
            raise forms.ValidationError("the entry is one JSON object: {...}")
        return data


class PriceOverrideForm(forms.Form):
    catalog_id = forms.CharField(required=False, max_length=80)
    unit_price_usd = forms.FloatField(
        error_messages={"invalid": "a number, in USD", "required": "a number, in USD"}
    )
    quote = forms.CharField(required=False, strip=False, max_length=300)
    quote_date = forms.CharField(required=False, max_length=10)


MAX_CALIBRATION_BYTES = 2_000_000  # a calibration file is ~60 kB


class MeasurementUploadForm(forms.Form):
    gpu_id = forms.CharField(max_length=80, error_messages={"required": "name the GPU entry"})
    calibration = forms.FileField(error_messages={"required": "choose the calibration JSON"})

    def clean_calibration(self):
        upload = self.cleaned_data["calibration"]
        if upload.size > MAX_CALIBRATION_BYTES:
            raise forms.ValidationError("a calibration file is at most 2 MB")
        try:
            data = loads_json(upload.read().decode("utf-8", errors="replace"))
        except JsonInvalid as exc:
            raise forms.ValidationError(str(exc)) from exc
        if not isinstance(data, dict):
            raise forms.ValidationError("the calibration file is one JSON object: {...}")
        return data
