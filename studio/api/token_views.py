"""The user's API and spreadsheet-feed tokens: create (shown once), list, revoke.

The page lives in the api app because a feed token opens one project (designs) and its exports
(reports); accounts below owns the tokens themselves."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render

from studio.accounts.models import ApiToken, TokenKind
from studio.accounts.tokens import token_create, token_revoke
from studio.api.forms import TokenCreateForm, TokenRevokeForm
from studio.designs.selectors import projects_visible_to


@login_required
def tokens_page(request):
    projects = projects_visible_to(request.user)
    if request.method == "POST" and "revoke" in request.POST:
        revoke = TokenRevokeForm(request.POST)
        pk = revoke.cleaned_data["revoke"] if revoke.is_valid() else None
        token = ApiToken.objects.filter(user=request.user, pk=pk).first() if pk else None
        if token is not None:
            token_revoke(actor=request.user, token=token)
            messages.success(request, f"Revoked “{token.name}”.")
        return redirect("tokens")
    form = TokenCreateForm(request.POST or None, user=request.user, projects=projects)
    created_key = None
    if request.method == "POST" and form.is_valid():
        _, created_key = token_create(actor=request.user, **form.cleaned_data)
    tokens = ApiToken.objects.filter(user=request.user).select_related("project")
    return render(
        request,
        "accounts/tokens.html",
        {
            "tokens": tokens,
            "projects": projects,
            "created_key": created_key,
            "form": form,
            "kinds": TokenKind.choices,
        },
        status=400 if form.errors else 200,
    )
