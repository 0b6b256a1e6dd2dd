"""Domain errors that services raise and views show: the one place a database unique
violation becomes a message the user can act on."""

from contextlib import contextmanager

from django.db import IntegrityError, transaction


class DomainError(ValueError):
    """A write refused for a reason the user can fix; `field` names the form field at fault."""

    field: str | None = None


class NameTaken(DomainError):
    """Another object in the same scope already has this name."""

    field = "name"


@contextmanager
def unique_name(error: NameTaken):
    """Run the block in a savepoint; a unique-constraint violation raises `error` instead."""
    try:
        with transaction.atomic():
            yield
    except IntegrityError as exc:
        raise error from exc
