"""Forms of the pages the api app serves (the tokens page)."""

from django import forms

from studio.accounts.models import Role, TokenKind
from studio.accounts.selectors import user_has_role
from studio.accounts.tokens import MAX_LIFETIME_DAYS
from studio.core.inputs import IdField


class TokenCreateForm(forms.Form):
    name = forms.CharField(
        max_length=100,  # ApiToken.name
        error_messages={"required": "Give the token a name (what or who uses it)."},
    )
    kind = forms.ChoiceField(choices=TokenKind.choices, initial=TokenKind.API)
    project = forms.ModelChoiceField(queryset=None, required=False)
    lifetime_days = forms.IntegerField(
        min_value=1,
        max_value=MAX_LIFETIME_DAYS,
        initial=90,
        error_messages={
            "invalid": "Between 1 and 365 days.",
            "min_value": "Between 1 and 365 days.",
            "max_value": "Between 1 and 365 days.",
            "required": "Between 1 and 365 days.",
        },
    )
    write_enabled = forms.BooleanField(required=False)

    def __init__(self, *args, user, projects, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        self.fields["project"].queryset = projects

    def clean(self):
        data = super().clean()
        kind = data.get("kind")
        if kind == TokenKind.FEED and data.get("project") is None:
            self.add_error("project", "A feed token opens one project: pick it.")
        if (
            data.get("write_enabled")
            and kind == TokenKind.API
            and not any(
                user_has_role(self.user, p.team_id, Role.EDITOR)
                for p in self.fields["project"].queryset
            )
        ):
            self.add_error("write_enabled", "You have no editor role in any team.")
        return data


class TokenRevokeForm(forms.Form):
    revoke = IdField()
