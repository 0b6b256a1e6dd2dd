"""Teams and roles. A project belongs to a team; what a user may see and do follows from the
role of their membership in that team."""

from django.conf import settings
from django.db import models


class Role(models.TextChoices):
    OWNER = "owner", "Owner"
    EDITOR = "editor", "Editor"
    VIEWER = "viewer", "Viewer"


# Higher rank includes every right of the lower ones.
ROLE_RANK = {Role.VIEWER: 1, Role.EDITOR: 2, Role.OWNER: 3}


class Team(models.Model):
    name = models.CharField(max_length=120, unique=True)
    slug = models.SlugField(max_length=120, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="teams"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.VIEWER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["team", "user"], name="unique_membership"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.team} ({self.role})"

    def allows(self, required: Role) -> bool:
        return ROLE_RANK[Role(self.role)] >= ROLE_RANK[required]


class TokenKind(models.TextChoices):
    API = "api", "API (Authorization header)"
    FEED = "feed", "Spreadsheet feed (read-only, one project, in the URL)"


class ApiToken(models.Model):
    """A named, expiring, revocable token stored only as a keyed hash (NetBox v2 style).

    Feed tokens are a documented exception to 'no secrets in URLs' (ASVS 14.2.1) for
    spreadsheet pulls: read-only, bound to one project, accepted only by CSV/XLSX exports."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=8, choices=TokenKind.choices, default=TokenKind.API)
    project = models.ForeignKey(
        "designs.Project",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="feed_tokens",
    )
    key_prefix = models.CharField(max_length=12)
    digest = models.CharField(max_length=64, unique=True)
    write_enabled = models.BooleanField(default=False)
    expires_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind}, {self.key_prefix}…)"


class Invitation(models.Model):
    """An owner's invitation of an email address into a team with a role. The link's key is
    stored only as a keyed hash; the link works once, until it expires or is revoked."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField(max_length=254)
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.VIEWER)
    digest = models.CharField(max_length=64, unique=True)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.email} to {self.team} ({self.role})"


class PasswordResetRequest(models.Model):
    """One password-reset request that was let through, kept for the rate limit's window
    (studio.accounts.reset_throttle). The address asked for is stored only as a keyed digest:
    the table holds no list of e-mail addresses, and says nothing of which have accounts."""

    ip = models.CharField(max_length=45, blank=True)
    email_digest = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            models.Index(fields=["ip", "created_at"]),
            models.Index(fields=["email_digest", "created_at"]),
            models.Index(fields=["created_at"]),
        ]

    def __str__(self) -> str:
        return f"password reset request from {self.ip or 'unknown'} at {self.created_at}"
