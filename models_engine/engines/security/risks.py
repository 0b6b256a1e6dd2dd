"""Accepted risks: a named owner's decision to live with a failing (or unattested) check
until a date. Stored with the design by the studio; applied here.

An entry is {check_id, reason, owner, expires (ISO date)}. While it has not expired it turns
a FAIL or MANUAL result into ACCEPTED_RISK; the day after `expires` it no longer applies and
is reported as expired. An entry for a passing or non-applicable check is reported as not
needed, one for an unknown check id as unknown_check: nothing is dropped silently.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

# States of an accepted-risk entry in the report.
ACTIVE = "active"
EXPIRED = "expired"
NOT_NEEDED = "not_needed"
SUPERSEDED = "superseded"
UNKNOWN_CHECK = "unknown_check"


class AcceptedRisk(BaseModel):
    """One accepted risk; extra keys the studio keeps (who recorded it, when) are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    check_id: str = Field(min_length=1)
    reason: str = Field(min_length=1)
    owner: str = Field(min_length=1)
    expires: date

    @field_validator("reason", "owner", "check_id")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value.strip()

    def is_active(self, as_of: date) -> bool:
        """Valid through the expiry date itself."""
        return self.expires >= as_of

    def as_dict(self) -> dict[str, Any]:
        return {
            "check_id": self.check_id,
            "reason": self.reason,
            "owner": self.owner,
            "expires": self.expires.isoformat(),
        }


def parse_accepted_risks(entries: list[dict[str, Any]] | None) -> list[AcceptedRisk]:
    """Validate the entries; a malformed one is a ValueError naming its index and field."""
    parsed: list[AcceptedRisk] = []
    for index, entry in enumerate(entries or []):
        try:
            parsed.append(AcceptedRisk.model_validate(entry))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in error['loc']) or '(entry)'}: {error['msg']}"
                for error in exc.errors()
            )
            raise ValueError(f"accepted_risks[{index}]: {problems}") from None
    return parsed


def pick_active(risks: list[AcceptedRisk], as_of: date) -> AcceptedRisk | None:
    """The active entry with the latest expiry among those for one check, if any."""
    active = [risk for risk in risks if risk.is_active(as_of)]
    return max(active, key=lambda risk: risk.expires) if active else None
