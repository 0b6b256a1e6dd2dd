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
