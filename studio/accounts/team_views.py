"""Teams: members, roles and invitations. Owners manage membership and invite by link; every
member sees who is in."""

import logging
import smtplib

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.mail import send_mail
from django.http import Http404
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_POST

from studio.accounts import invitations, services
from studio.accounts.forms import InvitationForm, MembershipForm, TeamCreateForm
from studio.accounts.invitations import pending_invitations
from studio.accounts.models import Role
from studio.accounts.selectors import membership_of, teams_of

logger = logging.getLogger(__name__)


@login_required
def team_list(request):
    if request.method == "POST":
        form = TeamCreateForm(request.POST)
        if not form.is_valid():
            messages.error(request, form.errors["name"][0])
        else:
            try:
                team = services.team_create(actor=request.user, name=form.cleaned_data["name"])
            except services.TeamNameTaken as exc:
                messages.error(request, str(exc))
            else:
                return redirect("team-detail", pk=team.pk)
    teams = teams_of(request.user).prefetch_related("memberships__user")
    return render(request, "accounts/teams.html", {"teams": teams})


@login_required
def team_detail(request, pk: int):
    team = teams_of(request.user).filter(pk=pk).first()
    if team is None:
        raise Http404("No such team")
    me = membership_of(request.user, team.pk)
    if request.method == "POST":
        if not me.allows(Role.OWNER):
            messages.error(request, "Only owners manage members.")
            return redirect("team-detail", pk=team.pk)
        _change_membership(request, team)
        return redirect("team-detail", pk=team.pk)
    return _team_page(request, team, me)


def _team_page(request, team, me, *, invite_form=None, invitation_link=None, status=200):
    is_owner = me.allows(Role.OWNER)
    return render(
        request,
        "accounts/team_detail.html",
        {
            "team": team,
            "me": me,
            "roles": Role.choices,
            "memberships": team.memberships.select_related("user").order_by("user__username"),
            "invitations": pending_invitations(team) if is_owner else [],
            "invite_form": invite_form or InvitationForm(),
            "invitation_link": invitation_link,
            "invitation_days": settings.INVITATION_DEFAULT_DAYS,
            "invitation_max_days": settings.INVITATION_MAX_DAYS,
        },
        status=status,
    )


def _owned_team(request, pk: int):
    """The team, if the user is in it (else 404), and the user is its owner (else 403)."""
    team = teams_of(request.user).filter(pk=pk).first()
    if team is None:
        raise Http404("No such team")
    me = membership_of(request.user, team.pk)
    if not me.allows(Role.OWNER):
        raise PermissionDenied("Only owners manage invitations.")
    return team, me


@login_required
@require_POST
def team_invite(request, pk: int):
    team, me = _owned_team(request, pk)
    form = InvitationForm(request.POST)
    if not form.is_valid():
        return _team_page(request, team, me, invite_form=form, status=400)
    invitation, key = invitations.invitation_create(
        actor=request.user,
        team=team,
        email=form.cleaned_data["email"],
        role=form.cleaned_data["role"],
        days=form.cleaned_data.get("days"),
    )
    link = request.build_absolute_uri(reverse("invitation-accept", args=[key]))
    sent = _send_invitation(request, invitation, link)
    messages.success(
        request,
        f"Invited {invitation.email} as {invitation.get_role_display().lower()}"
        + (" (email sent)." if sent else "; the email could not be sent, pass the link on."),
    )
    # The link is shown once, in this answer only (never in a message cookie or a redirect).
    return _team_page(request, team, me, invitation_link=link)


def _send_invitation(request, invitation, link: str) -> bool:
    body = render_to_string(
        "accounts/invitation_email.txt",
        {"invitation": invitation, "link": link, "inviter": request.user},
    )
    try:
        send_mail(
            f"You are invited to {invitation.team.name} on Cluster Studio",
            body,
            None,
            [invitation.email],
        )
    except (OSError, smtplib.SMTPException):
        logger.warning("invitation email to %s failed", invitation.email, exc_info=True)
        return False
    return True


@login_required
@require_POST
def team_invitation_revoke(request, pk: int, invitation_pk: int):
    team, _ = _owned_team(request, pk)
    invitation = team.invitations.filter(pk=invitation_pk).first()
    if invitation is None:
        raise Http404("No such invitation")
    invitations.invitation_revoke(actor=request.user, invitation=invitation)
    messages.success(request, f"Revoked the invitation of {invitation.email}.")
    return redirect("team-detail", pk=team.pk)


def _change_membership(request, team) -> None:
    form = MembershipForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            messages.error(request, errors[0])
        return
    user, username = form.cleaned_data["user"], form.cleaned_data["username"]
    role = form.cleaned_data["role"]
    try:
        if form.cleaned_data["action"] == "remove":
            services.membership_remove(actor=request.user, team=team, user=user)
            messages.success(request, f"Removed {username}.")
        elif membership_of(user, team.pk):
            services.membership_change_role(actor=request.user, team=team, user=user, role=role)
            messages.success(request, f"{username} is now {role}.")
        else:
            services.membership_set(actor=request.user, team=team, user=user, role=role)
            messages.success(request, f"{username} is now {role}.")
    except services.MembershipChangeRefused as exc:
        messages.error(request, str(exc))
