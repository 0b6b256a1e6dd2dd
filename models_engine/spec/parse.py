"""parse_design: any JSON-like value in, a DesignSpec or a SpecValidationError out."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from .design import DesignSpec
from .errors import SpecValidationError, error, errors_from_pydantic
from .migrations import migrate


def parse_design(doc: Any) -> DesignSpec:
    """Migrate `doc` to the current version and validate it.

    Raises SpecValidationError (a ValueError) listing every problem; no other exception
    escapes for JSON-like input.
    """
    migrated = migrate(doc)
    try:
        return DesignSpec.model_validate(migrated)
    except ValidationError as exc:
        raise SpecValidationError(errors_from_pydantic(exc, DesignSpec)) from None
    except RecursionError:
        raise SpecValidationError(
            [error("", "the document is nested too deeply to be a design")]
        ) from None
    except Exception as exc:
        # A bug in a rule must still reach the user as a validation error; the tests fail
        # on any message starting with "internal".
        raise SpecValidationError(
            [error("", f"internal validation error ({type(exc).__name__}): {exc}")]
        ) from exc
