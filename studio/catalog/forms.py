"""Forms of the catalog page: they parse what was typed; the services check the entry."""

import json

from django import forms

from models_engine import KINDS


class CatalogEntryForm(forms.Form):
    kind = forms.ChoiceField(choices=[(k, k) for k in KINDS])
    data = forms.CharField(strip=False, error_messages={"required": "paste the entry as JSON"})

    def clean_data(self):
        try:
            return json.loads(self.cleaned_data["data"])
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"not valid JSON: {exc}") from exc


class PriceOverrideForm(forms.Form):
    catalog_id = forms.CharField(required=False)
    unit_price_usd = forms.FloatField(
        error_messages={"invalid": "a number, in USD", "required": "a number, in USD"}
    )
    quote = forms.CharField(required=False, strip=False)
    quote_date = forms.CharField(required=False)
