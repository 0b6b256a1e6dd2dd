"""Forms of the run pages."""

from django import forms


class RiskAcceptForm(forms.Form):
    """Accept a failing security finding: the service checks the id, reason, owner, expiry."""

    check_id = forms.CharField(required=False)
    reason = forms.CharField(required=False, strip=False)
    owner = forms.CharField(required=False, strip=False)
    expires = forms.DateField(required=False, input_formats=["%Y-%m-%d"])
    run = forms.IntegerField(required=False, min_value=1)
