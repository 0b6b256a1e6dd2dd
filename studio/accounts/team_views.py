"""Teams: members and roles. Owners manage membership; every member sees who is in."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.db import IntegrityError
from django.http import Http404
from django.shortcuts import redirect, render

from studio.accounts import services
from studio.accounts.models import Role
from studio.accounts.selectors import membership_of, teams_of


@login_required
def team_list(request):
    if request.method == "POST":
        name = request.POST.get("name", "").strip()
        if not name:
            messages.error(request, "A team needs a name.")
        else:
            try:
                team = services.team_create(actor=request.user, name=name)
            except IntegrityError:
                messages.error(request, f"A team named “{name}” already exists.")
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
    return render(
        request,
        "accounts/team_detail.html",
        {
            "team": team,
            "me": me,
            "roles": Role.choices,
            "memberships": team.memberships.select_related("user").order_by("user__username"),
        },
    )


def _change_membership(request, team) -> None:
    username = request.POST.get("username", "").strip()
    user = get_user_model().objects.filter(username=username, is_active=True).first()
    if user is None:
        messages.error(request, f"No active user “{username}”.")
        return
    action = request.POST.get("action", "set")
    role = request.POST.get("role", Role.VIEWER)
    try:
        if action == "remove":
            services.membership_remove(actor=request.user, team=team, user=user)
            messages.success(request, f"Removed {username}.")
        elif role in Role.values:
            if membership_of(user, team.pk):
                services.membership_change_role(
                    actor=request.user, team=team, user=user, role=Role(role)
                )
            else:
                services.membership_set(actor=request.user, team=team, user=user, role=Role(role))
            messages.success(request, f"{username} is now {role}.")
    except services.MembershipChangeRefused as exc:
        messages.error(request, str(exc))
