"""Log-in, password change and reset, and accepting an invitation."""

from axes.utils import reset as axes_reset
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.http import HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy

from studio.accounts import invitations, services
from studio.accounts.forms import InvitationSignUpForm
from studio.accounts.reset_throttle import ResetVerdict, reset_request_admit
from studio.core.middleware import client_ip

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


class PasswordChangeView(auth_views.PasswordChangeView):
    """Changing the password revokes the user's API and feed tokens and is audited; this
    session stays, every other session of the user ends."""

    success_url = reverse_lazy("project-list")

    def form_valid(self, form):
        response = super().form_valid(form)
        revoked = services.password_changed(user=form.user, via="change")
        messages.success(
            self.request,
            "Password changed."
            + (f" {revoked} API/feed token(s) revoked: create new ones." if revoked else ""),
        )
        return response


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset form behind a rate limit per client and per address asked for
    (studio.accounts.reset_throttle); whether an account exists changes no answer."""

    def form_valid(self, form):
        verdict = reset_request_admit(ip=client_ip(self.request), email=form.cleaned_data["email"])
        if verdict is ResetVerdict.CLIENT_OVER_LIMIT:
            return render(self.request, "registration/password_reset_limited.html", status=429)
        if verdict is ResetVerdict.ADDRESS_OVER_LIMIT:
            return HttpResponseRedirect(self.get_success_url())  # as if sent; nothing is
        return super().form_valid(form)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """The one-time link of a reset: Django's token is bound to the current password hash, so
    it dies once used. A reset revokes tokens like a change, and lifts a lockout."""

    success_url = reverse_lazy("password_reset_complete")

    def form_valid(self, form):
        response = super().form_valid(form)
        services.password_changed(user=form.user, via="reset")
        axes_reset(username=form.user.get_username())
        return response


def invitation_accept(request, key: str):
    invitation = invitations.invitation_for_key(key)
    if invitation is None:
        return render(request, "accounts/invitation_invalid.html", status=404)
    context = {"invitation": invitation, "key": key}
    if request.user.is_authenticated:
        if request.method == "POST":
            try:
                invitations.invitation_accept(user=request.user, key=key)
            except invitations.InvitationInvalid:
                return render(request, "accounts/invitation_invalid.html", status=404)
            messages.success(request, f"You joined {invitation.team.name}.")
            return redirect("team-detail", pk=invitation.team_id)
        return render(request, "accounts/invitation_accept.html", context)
    form = InvitationSignUpForm(request.POST or None, email=invitation.email)
    if request.method == "POST" and form.is_valid():
        try:
            user = invitations.invitation_sign_up(
                key=key,
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password1"],
            )
        except invitations.UsernameTaken as exc:
            form.add_error("username", str(exc))
        except invitations.InvitationInvalid:
            return render(request, "accounts/invitation_invalid.html", status=404)
        else:
            login(request, user, backend=MODEL_BACKEND)
            messages.success(request, f"Welcome! You joined {invitation.team.name}.")
            return redirect("team-detail", pk=invitation.team_id)
    context.update(
        form=form, login_url=f"{reverse('login')}?next={reverse('invitation-accept', args=[key])}"
    )
    status = 400 if form.errors else 200
    return render(request, "accounts/invitation_accept.html", context, status=status)
