"""Forms of the run pages."""

from django import forms

from studio.core.inputs import IdField


class RiskAcceptForm(forms.Form):
    """Accept a failing security finding: the service checks the id, reason, owner, expiry."""

    check_id = forms.CharField(required=False, max_length=32)
    reason = forms.CharField(required=False, strip=False, max_length=2_000)
    owner = forms.CharField(required=False, strip=False, max_length=200)
    expires = forms.DateField(
        required=False,
        input_formats=["%Y-%m-%d"],
        error_messages={"invalid": "a date that exists, as YYYY-MM-DD"},
    )
    run = IdField(required=False)
