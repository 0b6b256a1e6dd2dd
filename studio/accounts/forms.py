"""Forms of the team pages."""

from django import forms
from django.contrib.auth import get_user_model

from studio.accounts.models import Role


class TeamCreateForm(forms.Form):
    name = forms.CharField(max_length=120, error_messages={"required": "A team needs a name."})


class MembershipForm(forms.Form):
    """Add a member, change a member's role or remove them (`action`)."""

    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=Role.choices, required=False, initial=Role.VIEWER)
    action = forms.ChoiceField(choices=[("set", "set"), ("remove", "remove")], required=False)

    def clean_username(self):
        username = self.cleaned_data["username"].strip()
        user = get_user_model().objects.filter(username=username, is_active=True).first()
        if user is None:
            raise forms.ValidationError(f"No active user “{username}”.")
        self.cleaned_data["user"] = user
        return username

    def clean_role(self):
        return Role(self.cleaned_data.get("role") or Role.VIEWER)
