from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "studio.accounts"
    label = "accounts"

    def ready(self):
        from studio.accounts import signals  # noqa: F401  (rate-limited failed log-in audit)
