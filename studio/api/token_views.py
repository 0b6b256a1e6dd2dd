"""The user's API and spreadsheet-feed tokens: create (shown once), list, revoke."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render

from studio.accounts.models import ApiToken, Role, TokenKind
from studio.accounts.selectors import user_has_role
from studio.accounts.tokens import token_create, token_revoke
from studio.designs.selectors import projects_visible_to


def _form_errors(post, projects) -> tuple[dict, dict]:
    errors, values = {}, {}
    values["name"] = post.get("name", "").strip()
    if not values["name"]:
        errors["name"] = "Give the token a name (what or who uses it)."
    values["kind"] = post.get("kind", TokenKind.API)
    if values["kind"] not in TokenKind.values:
        errors["kind"] = f"One of: {', '.join(TokenKind.values)}."
    days = post.get("lifetime_days", "90")
    values["lifetime_days"] = int(days) if days.isdigit() else 0
    if not 1 <= values["lifetime_days"] <= 365:
        errors["lifetime_days"] = "Between 1 and 365 days."
    values["write_enabled"] = post.get("write_enabled") == "on"
    project_id = post.get("project", "")
    values["project"] = projects.filter(pk=project_id).first() if project_id.isdigit() else None
    if values["kind"] == TokenKind.FEED and values["project"] is None:
        errors["project"] = "A feed token opens one project: pick it."
    return values, errors


@login_required
def tokens_page(request):
    projects = projects_visible_to(request.user)
    created_key, errors, values = None, {}, {}
    if request.method == "POST" and request.POST.get("revoke"):
        token = ApiToken.objects.filter(user=request.user, pk=request.POST["revoke"]).first()
        if token is not None:
            token_revoke(actor=request.user, token=token)
            messages.success(request, f"Revoked “{token.name}”.")
        return redirect("tokens")
    if request.method == "POST":
        values, errors = _form_errors(request.POST, projects)
        if (
            values.get("write_enabled")
            and values.get("kind") == TokenKind.API
            and not any(user_has_role(request.user, p.team_id, Role.EDITOR) for p in projects)
        ):
            errors["write_enabled"] = "You have no editor role in any team."
        if not errors:
            _, created_key = token_create(
                actor=request.user,
                name=values["name"],
                kind=values["kind"],
                project=values["project"],
                lifetime_days=values["lifetime_days"],
                write_enabled=values["write_enabled"],
            )
    tokens = ApiToken.objects.filter(user=request.user).select_related("project")
    return render(
        request,
        "accounts/tokens.html",
        {
            "tokens": tokens,
            "projects": projects,
            "created_key": created_key,
            "errors": errors,
            "values": values,
            "kinds": TokenKind.choices,
        },
        status=400 if errors else 200,
    )
