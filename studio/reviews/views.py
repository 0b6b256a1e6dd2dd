"""Review pages: ask for a review, the inbox, the review page with its live panel, and the
posts that add comments, resolve threads and give verdicts. Every page finds its object
through a scoped selector (another team's: 404) and checks the role for writes (403)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.generic import DetailView

from studio.accounts.models import Role
from studio.accounts.scoping import ScopedActionView, TeamScopedObjectMixin
from studio.accounts.selectors import user_has_role
from studio.designs.selectors import projects_visible_to
from studio.reviews import services
from studio.reviews.forms import (
    CommentForm,
    PolicyForm,
    ResolveForm,
    ReviewRequestForm,
    VerdictForm,
)
from studio.reviews.presentation import design_panels, live_context
from studio.reviews.selectors import (
    comments_visible_to,
    inbox_of,
    live_stamp,
    may_approve,
    policy_of,
    reviews_visible_to,
)


def _field_errors(form, exc: services.ReviewInvalid) -> None:
    for name, message in exc.errors.items():
        form.add_error(name if name in form.fields else None, message)


class ProjectReviewRequestView(TeamScopedObjectMixin, DetailView):
    """GET: the form to ask team members for a review (editors), the project's reviews and
    its review policy; POST: ask."""

    scope_selector = projects_visible_to
    template_name = "reviews/review_request.html"
    context_object_name = "project"

    def _form(self, data=None):
        initial = {"designs": self.request.GET.getlist("design")}
        return ReviewRequestForm(data, project=self.object, user=self.request.user, initial=initial)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        policy = policy_of(self.object)
        context.update(
            form=kwargs.get("form") or self._form(),
            reviews=reviews_visible_to(self.request.user).filter(project=self.object),
            policy=policy,
            policy_form=kwargs.get("policy_form")
            or PolicyForm(
                initial={
                    "required_approvals": policy.required_approvals,
                    "viewers_may_approve": policy.viewers_may_approve,
                }
            ),
            can_edit=user_has_role(self.request.user, self.object.team_id, Role.EDITOR),
            is_owner=user_has_role(self.request.user, self.object.team_id, Role.OWNER),
        )
        return context

    def post(self, request, *args, **kwargs):
        self.object = self.get_object()
        self.require_role(self.object, Role.EDITOR)
        form = self._form(request.POST)
        if form.is_valid():
            try:
                review = services.review_request(
                    actor=request.user,
                    project=self.object,
                    designs=list(form.cleaned_data["designs"]),
                    reviewers=list(form.cleaned_data["reviewers"]),
                    title=form.cleaned_data["title"],
                    description=form.cleaned_data["description"],
                )
            except services.ReviewInvalid as exc:
                _field_errors(form, exc)
            else:
                messages.success(request, "Review requested; the reviewers were notified.")
                return redirect("review-detail", pk=review.pk)
        return self.render_to_response(self.get_context_data(form=form), status=400)


class ProjectReviewPolicyView(ProjectReviewRequestView):
    """POST only (owners): how many approvals a design needs, and whether viewers approve."""

    http_method_names = ["post", "options"]

    def post(self, request, *args, **kwargs):
        self.object = project = self.get_object()
        self.require_role(project, Role.OWNER)
        form = PolicyForm(request.POST)
        if not form.is_valid():
            context = self.get_context_data(policy_form=form)
            return self.render_to_response(context, status=400)
        services.policy_set(actor=request.user, project=project, **form.cleaned_data)
        messages.success(request, "Review policy saved.")
        return redirect("project-review-new", pk=project.pk)


@login_required
def inbox(request):
    rows = inbox_of(request.user)
    asked = reviews_visible_to(request.user).filter(requested_by=request.user)[:50]
    notices = request.user.review_notifications.select_related("review")[:50]
    return render(
        request,
        "reviews/inbox.html",
        {"rows": rows, "asked": asked, "notices": notices},
    )


class ReviewDetailView(TeamScopedObjectMixin, DetailView):
    scope_selector = reviews_visible_to
    team_id_path = "project.team_id"
    template_name = "reviews/review_detail.html"
    context_object_name = "review"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        review = self.object
        services.notifications_read(user=self.request.user, review=review)
        context.update(live_context(review))
        context.update(
            panels=design_panels(review),
            stamp=live_stamp(review),
            comment_form=kwargs.get("comment_form") or CommentForm(),
            verdict_form=kwargs.get("verdict_form") or VerdictForm(),
            may_approve=may_approve(self.request.user, review.project),
            can_edit=user_has_role(self.request.user, review.project.team_id, Role.EDITOR),
        )
        return context


class ReviewLiveView(TeamScopedObjectMixin, DetailView):
    """GET (polled every second): the verdicts and threads; 204 when nothing changed since
    the version the page has (`?v=`), so a quiet review costs one small query per poll."""

    scope_selector = reviews_visible_to
    team_id_path = "project.team_id"
    template_name = "reviews/_live.html"
    context_object_name = "review"

    def get(self, request, *args, **kwargs):
        self.object = self.get_object()
        stamp = live_stamp(self.object)
        if request.GET.get("v") == stamp:
            return HttpResponse(status=204)
        return render(request, self.template_name, _live(request, self.object, stamp))


def _live(request, review, stamp=None) -> dict:
    return {
        **live_context(review),
        "stamp": stamp or live_stamp(review),
        "may_approve": may_approve(request.user, review.project),
    }


def _after_write(request, review):
    """htmx: the refreshed live panel; a plain post: back to the review page."""
    if request.htmx:
        return render(request, "reviews/_live.html", _live(request, review))
    return redirect("review-detail", pk=review.pk)


def _refused(request, review, form, form_name: str | None = None):
    """400 with the form's field errors: htmx swaps them into the form's error box; a plain
    post gets the review page again, the form (`form_name`) or the messages holding them."""
    if request.htmx:
        return render(request, "reviews/_form_errors.html", {"form": form}, status=400)
    if form_name is None:
        for field, errors in form.errors.items():
            for error in errors:
                messages.error(request, f"{field}: {error}" if field != "__all__" else error)
    view = ReviewDetailView()
    view.setup(request, pk=review.pk)
    view.object = review
    context = view.get_context_data(object=review, **({form_name: form} if form_name else {}))
    return render(request, ReviewDetailView.template_name, context, status=400)


class ReviewCommentView(ScopedActionView):
    """POST: a comment (any team member, viewers included) or a reply (`parent`)."""

    scope_selector = reviews_visible_to
    team_id_path = "project.team_id"

    def post(self, request, *args, **kwargs):
        review = self.get_object()
        self.require_role(review, Role.VIEWER)
        form = CommentForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            parent = None
            if data["parent"]:
                parent = review.comments.filter(pk=data["parent"]).first()
                if parent is None:
                    form.add_error("parent", "a comment of this review")
            if form.is_valid():
                try:
                    services.comment_add(
                        actor=request.user,
                        review=review,
                        body=data["body"],
                        anchor_kind=data["anchor_kind"],
                        anchor_key=data["anchor_key"],
                        design_id=data["design"],
                        parent=parent,
                    )
                except services.ReviewInvalid as exc:
                    _field_errors(form, exc)
                else:
                    return _after_write(request, review)
        return _refused(request, review, form, "comment_form")


class ReviewVerdictView(ScopedActionView):
    """POST: approve / request changes (editors, or viewers where the owner allows it) or
    comment only (any member), on one design or every design under review."""

    scope_selector = reviews_visible_to
    team_id_path = "project.team_id"

    def post(self, request, *args, **kwargs):
        review = self.get_object()
        self.require_role(review, Role.VIEWER)
        form = VerdictForm(request.POST)
        if form.is_valid():
            try:
                services.verdict_give(
                    actor=request.user,
                    review=review,
                    kind=form.cleaned_data["kind"],
                    note=form.cleaned_data["note"],
                    design_id=form.cleaned_data["design"],
                )
            except services.ReviewInvalid as exc:
                _field_errors(form, exc)
            else:
                return _after_write(request, review)
        return _refused(request, review, form, "verdict_form")


class CommentResolveView(ScopedActionView):
    """POST resolved=1|0: resolve or reopen a thread (any team member)."""

    scope_selector = comments_visible_to
    team_id_path = "review.project.team_id"

    def post(self, request, *args, **kwargs):
        comment = self.get_object()
        self.require_role(comment, Role.VIEWER)
        form = ResolveForm(request.POST)
        if form.is_valid():
            try:
                services.comment_resolve(
                    actor=request.user, comment=comment, resolved=form.cleaned_data["resolved"]
                )
            except services.ReviewInvalid as exc:
                _field_errors(form, exc)
            else:
                return _after_write(request, comment.review)
        return _refused(request, comment.review, form)
