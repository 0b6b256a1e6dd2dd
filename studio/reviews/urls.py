from django.urls import path

from studio.reviews import present_views, views

urlpatterns = [
    path("reviews/", views.inbox, name="review-inbox"),
    path("reviews/<id:pk>/", views.ReviewDetailView.as_view(), name="review-detail"),
    path("reviews/<id:pk>/live/", views.ReviewLiveView.as_view(), name="review-live"),
    path("reviews/<id:pk>/comments/", views.ReviewCommentView.as_view(), name="review-comment"),
    path("reviews/<id:pk>/verdicts/", views.ReviewVerdictView.as_view(), name="review-verdict"),
    path(
        "reviews/<id:pk>/present/",
        present_views.ReviewPresentView.as_view(),
        name="review-present",
    ),
    path("comments/<id:pk>/resolve/", views.CommentResolveView.as_view(), name="comment-resolve"),
    path(
        "projects/<id:pk>/reviews/",
        views.ProjectReviewRequestView.as_view(),
        name="project-review-new",
    ),
    path(
        "projects/<id:pk>/review-policy/",
        views.ProjectReviewPolicyView.as_view(),
        name="project-review-policy",
    ),
    path(
        "designs/<id:pk>/what-if/",
        present_views.DesignWhatIfView.as_view(),
        name="design-what-if",
    ),
    path(
        "designs/<id:pk>/what-if/save/",
        present_views.DesignWhatIfSaveView.as_view(),
        name="design-what-if-save",
    ),
]
