"""Account routes: log-in/out, password change and reset, invitation links."""

from django.contrib.auth import views as django_auth_views
from django.urls import path

from studio.accounts import auth_views
from studio.accounts.forms import LoginForm

urlpatterns = [
    path(
        "login/",
        django_auth_views.LoginView.as_view(authentication_form=LoginForm),
        name="login",
    ),
    path("logout/", django_auth_views.LogoutView.as_view(), name="logout"),
    path("password/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path(
        "password/reset/",
        auth_views.PasswordResetView.as_view(),
        name="password_reset",
    ),
    path(
        "password/reset/sent/",
        django_auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/done/",
        django_auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("invitations/<str:key>/", auth_views.invitation_accept, name="invitation-accept"),
]
