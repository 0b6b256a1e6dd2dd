"""Teams: members and roles. Owners manage membership; every member sees who is in."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render

from studio.accounts import services
from studio.accounts.forms import MembershipForm, TeamCreateForm
from studio.accounts.models import Role
from studio.accounts.selectors import membership_of, teams_of


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
