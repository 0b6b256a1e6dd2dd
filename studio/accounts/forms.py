"""Forms of the team, invitation and sign-up pages."""

from django import forms
from django.conf import settings
from django.contrib.auth import forms as auth_forms
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.validators import UnicodeUsernameValidator

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


class InvitationForm(forms.Form):
    email = forms.EmailField(max_length=254)
    role = forms.ChoiceField(choices=Role.choices, initial=Role.VIEWER)
    days = forms.IntegerField(
        min_value=1, max_value=settings.INVITATION_MAX_DAYS, initial=7, required=False
    )

    def clean_role(self):
        return Role(self.cleaned_data["role"])


class InvitationSignUpForm(forms.Form):
    """A new account from an invitation; the email is the invitation's."""

    username = forms.CharField(
        max_length=150,
        validators=[UnicodeUsernameValidator()],
        help_text="Letters, digits and @/./+/-/_ only.",
    )
    password1 = forms.CharField(
        label="Password", max_length=128, strip=False, widget=forms.PasswordInput
    )
    password2 = forms.CharField(
        label="Password again", max_length=128, strip=False, widget=forms.PasswordInput
    )

    def __init__(self, *args, email: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.email = email

    def clean(self):
        cleaned = super().clean()
        p1, p2 = cleaned.get("password1"), cleaned.get("password2")
        if p1 and p2 and p1 != p2:
            self.add_error("password2", "The two passwords differ.")
        elif p1:
            user = get_user_model()(username=cleaned.get("username", ""), email=self.email)
            try:
                password_validation.validate_password(p1, user)
            except forms.ValidationError as exc:
                self.add_error("password1", exc)
        return cleaned


class LoginForm(auth_forms.AuthenticationForm):
    """Django's log-in form with length limits on both fields (its username's max_length is set
    after construction, so no validator checks it)."""

    username = auth_forms.UsernameField(
        max_length=150, widget=forms.TextInput(attrs={"autofocus": True})
    )
    password = forms.CharField(
        label="Password", max_length=1024, strip=False, widget=forms.PasswordInput
    )
