"""Review endpoints: reviews (list, read with each design's status, ask for one), their
comments and verdicts (list, add), resolving a thread. Scoped like the rest of the API;
spreadsheet trackers pull the lists."""

from django.contrib.auth import get_user_model
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response

from studio.accounts.models import Role
from studio.api import filters
from studio.api.openapi import documented
from studio.api.scoping import TeamScopedViewSet
from studio.api.serializers import IdField
from studio.designs.selectors import projects_visible_to
from studio.reviews import services
from studio.reviews.models import (
    MAX_REVIEW_DESIGNS,
    AnchorKind,
    Comment,
    ReviewRequest,
    Verdict,
    VerdictKind,
)
from studio.reviews.selectors import (
    comments_visible_to,
    review_states,
    review_status,
    reviews_visible_to,
)

MAX_TEXT = services.MAX_COMMENT


class ReviewSerializer(serializers.ModelSerializer):
    requested_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    reviewers = serializers.SlugRelatedField(slug_field="username", many=True, read_only=True)
    designs = serializers.SerializerMethodField()
    status = serializers.SerializerMethodField()

    class Meta:
        model = ReviewRequest
        fields = [
            "id",
            "project",
            "kind",
            "title",
            "description",
            "requested_by",
            "reviewers",
            "created_at",
            "superseded_by",
            "status",
            "designs",
        ]

    def _states(self, review):
        cache = self.context.setdefault("states", {})
        if review.pk not in cache:
            cache[review.pk] = review_states(review)
        return cache[review.pk]

    def get_status(self, review) -> str:
        return review_status(self._states(review))

    def get_designs(self, review) -> list[dict]:
        return [
            {
                "design": s.design.pk,
                "name": s.design.name,
                "latest_revision": s.latest.number if s.latest else None,
                "status": s.status,
                "approvals": s.approvals,
                "required_approvals": s.required,
            }
            for s in self._states(review)
        ]


class ReviewCreateSerializer(serializers.Serializer):
    project = IdField()
    designs = serializers.ListField(child=IdField(), min_length=1, max_length=MAX_REVIEW_DESIGNS)
    reviewers = serializers.ListField(
        child=serializers.CharField(max_length=150), min_length=1, max_length=50
    )
    title = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    description = serializers.CharField(
        max_length=MAX_TEXT, required=False, allow_blank=True, default=""
    )


class CommentSerializer(serializers.ModelSerializer):
    author = serializers.SlugRelatedField(slug_field="username", read_only=True)
    revision_number = serializers.IntegerField(source="revision.number", read_only=True)
    resolved = serializers.SerializerMethodField()

    class Meta:
        model = Comment
        fields = [
            "id",
            "review",
            "parent",
            "author",
            "design",
            "revision_number",
            "anchor_kind",
            "anchor_key",
            "anchor_value",
            "body",
            "resolved",
            "resolved_at",
            "created_at",
        ]

    def get_resolved(self, comment) -> bool:
        return comment.resolved_at is not None


class CommentCreateSerializer(serializers.Serializer):
    body = serializers.CharField(max_length=MAX_TEXT)
    anchor_kind = serializers.ChoiceField(choices=AnchorKind.choices, default=AnchorKind.GENERAL)
    anchor_key = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    design = IdField(required=False, allow_null=True, default=None)
    parent = IdField(required=False, allow_null=True, default=None)


class VerdictSerializer(serializers.ModelSerializer):
    reviewer = serializers.SlugRelatedField(slug_field="username", read_only=True)
    revision_number = serializers.IntegerField(source="revision.number", read_only=True)

    class Meta:
        model = Verdict
        fields = [
            "id",
            "review",
            "reviewer",
            "design",
            "revision_number",
            "kind",
            "note",
            "created_at",
        ]


class VerdictCreateSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=VerdictKind.choices)
    note = serializers.CharField(max_length=MAX_TEXT, required=False, allow_blank=True, default="")
    design = IdField(required=False, allow_null=True, default=None)


class ResolveSerializer(serializers.Serializer):
    resolved = serializers.BooleanField()


@extend_schema_view(
    list=extend_schema(responses=documented({200: ReviewSerializer(many=True)}, 400)),
    retrieve=extend_schema(responses=documented({200: ReviewSerializer}, 404)),
)
class ReviewViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, TeamScopedViewSet):
    scope_selector = reviews_visible_to
    serializer_class = ReviewSerializer
    team_id_path = "project.team_id"

    filterset_class = filters.ReviewFilter

    def safely_get_queryset(self, queryset):
        return queryset.prefetch_related("reviewers")

    @extend_schema(
        request=ReviewCreateSerializer,
        responses=documented({201: ReviewSerializer}, 400, 403, 404),
    )
    def create(self, request, *args, **kwargs):
        payload = ReviewCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        project = projects_visible_to(request.user).filter(pk=data["project"]).first()
        if project is None:
            raise NotFound("No such project among your teams.")
        self.require_team_role(project.team_id, Role.EDITOR)
        designs = list(project.designs.filter(pk__in=data["designs"]))
        if len(designs) != len(set(data["designs"])):
            raise ValidationError({"designs": ["ids of designs of this project"]})
        users = get_user_model().objects.filter(username__in=data["reviewers"])
        if users.count() != len(set(data["reviewers"])):
            raise ValidationError({"reviewers": ["usernames of members of the project's team"]})
        try:
            review = services.review_request(
                actor=request.user,
                project=project,
                designs=sorted(designs, key=lambda d: data["designs"].index(d.pk)),
                reviewers=list(users),
                title=data["title"],
                description=data["description"],
            )
        except services.ReviewInvalid as exc:
            raise ValidationError({k: [v] for k, v in exc.errors.items()}) from exc
        return Response(ReviewSerializer(review).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        methods=["get"],
        request=None,
        responses=documented({200: CommentSerializer(many=True)}, 404),
    )
    @extend_schema(
        methods=["post"],
        request=CommentCreateSerializer,
        responses=documented({201: CommentSerializer}, 400, 403, 404),
    )
    @action(detail=True, methods=["get", "post"])
    def comments(self, request, pk=None, format=None):
        """GET: every comment (threads: `parent`); POST: a comment, viewers included."""
        review = self.get_object()
        if request.method == "GET":
            comments = review.comments.select_related("author", "revision")
            return Response(CommentSerializer(comments, many=True).data)
        self.require_team_role(review.project.team_id, Role.VIEWER)
        payload = CommentCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        parent = None
        if data["parent"] is not None:
            parent = review.comments.filter(pk=data["parent"]).first()
            if parent is None:
                raise ValidationError({"parent": ["a comment of this review"]})
        try:
            comment = services.comment_add(
                actor=request.user,
                review=review,
                body=data["body"],
                anchor_kind=data["anchor_kind"],
                anchor_key=data["anchor_key"],
                design_id=data["design"],
                parent=parent,
            )
        except services.ReviewInvalid as exc:
            raise ValidationError({k: [v] for k, v in exc.errors.items()}) from exc
        return Response(CommentSerializer(comment).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        methods=["get"],
        request=None,
        responses=documented({200: VerdictSerializer(many=True)}, 404),
    )
    @extend_schema(
        methods=["post"],
        request=VerdictCreateSerializer,
        responses=documented({201: VerdictSerializer(many=True)}, 400, 403, 404),
    )
    @action(detail=True, methods=["get", "post"])
    def verdicts(self, request, pk=None, format=None):
        """GET: every verdict, oldest first; POST: a verdict on one design or on all."""
        review = self.get_object()
        if request.method == "GET":
            verdicts = review.verdicts.select_related("reviewer", "revision")
            return Response(VerdictSerializer(verdicts, many=True).data)
        self.require_team_role(review.project.team_id, Role.VIEWER)
        payload = VerdictCreateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        try:
            verdicts = services.verdict_give(
                actor=request.user,
                review=review,
                kind=payload.validated_data["kind"],
                note=payload.validated_data["note"],
                design_id=payload.validated_data["design"],
            )
        except services.ReviewInvalid as exc:
            raise ValidationError({k: [v] for k, v in exc.errors.items()}) from exc
        return Response(VerdictSerializer(verdicts, many=True).data, status=status.HTTP_201_CREATED)


@extend_schema_view(
    list=extend_schema(responses=documented({200: CommentSerializer(many=True)}, 400)),
    retrieve=extend_schema(responses=documented({200: CommentSerializer}, 404)),
)
class ReviewCommentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, TeamScopedViewSet):
    scope_selector = comments_visible_to
    serializer_class = CommentSerializer
    team_id_path = "review.project.team_id"
    filterset_class = filters.ReviewCommentFilter

    def safely_get_queryset(self, queryset):
        return queryset.select_related("author", "revision")

    @extend_schema(
        request=ResolveSerializer, responses=documented({200: CommentSerializer}, 400, 403, 404)
    )
    @action(detail=True, methods=["post"])
    def resolve(self, request, pk=None, format=None):
        """POST {resolved: true|false}: resolve or reopen the thread."""
        comment = self.get_object()
        self.require_team_role(comment.review.project.team_id, Role.VIEWER)
        payload = ResolveSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        try:
            services.comment_resolve(
                actor=request.user, comment=comment, resolved=payload.validated_data["resolved"]
            )
        except services.ReviewInvalid as exc:
            raise ValidationError({k: [v] for k, v in exc.errors.items()}) from exc
        return Response(CommentSerializer(comment).data)
