"""Strict parsing of untrusted input: ids, bounded integers, JSON documents, plain-text labels.

One place decides what an id looks like (ASCII digits, at most 19 of them, within PostgreSQL's
bigint), so `²`, `٣` or `99999999999999999999` are refused the same way everywhere instead of
reaching `int()` or the database. JSON documents are bounded in depth and hold no NUL characters
(PostgreSQL's jsonb refuses them) and no non-finite numbers."""

import json
import math
import re
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import ProhibitNullCharactersValidator
from django.http import Http404
from django.utils.html import strip_tags

# Largest primary key PostgreSQL's bigint holds.
MAX_ID = 2**63 - 1
_DIGITS = re.compile(r"[0-9]{1,19}")
# A design spec nests about 6 levels; catalog entries fewer. 32 leaves room and stops abuse.
MAX_JSON_DEPTH = 32
MAX_JSON_BYTES = 2 * 1024 * 1024


def parse_int(value: Any, *, minimum: int = 0, maximum: int = MAX_ID) -> int | None:
    """The integer `value` spells in ASCII digits within [minimum, maximum]; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    else:
        text = str(value).strip() if value is not None else ""
        if not _DIGITS.fullmatch(text):
            return None
        number = int(text)
    return number if minimum <= number <= maximum else None


def parse_id(value: Any) -> int | None:
    """A primary key (1..MAX_ID) from untrusted text; None when it cannot be one."""
    return parse_int(value, minimum=1)


def id_or_404(value: Any) -> int:
    number = parse_id(value)
    if number is None:
        raise Http404("No such object")
    return number


class IdConverter:
    """URL converter `<id:pk>`: ASCII digits within bigint; anything else does not match (404)."""

    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = parse_id(value)
        if number is None:
            raise ValueError(value)  # the resolver treats it as no match
        return number

    def to_url(self, value) -> str:
        return str(value)


class IdField(forms.Field):
    """A form field holding an id; the same rule as `parse_id`, with a field error."""

    default_error_messages = {"invalid": f"An id: a whole number between 1 and {MAX_ID}."}

    def to_python(self, value):
        if value in self.empty_values:
            return None
        number = parse_id(value)
        if number is None:
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return number


# ---- text -----------------------------------------------------------------------------------

no_nul = ProhibitNullCharactersValidator()


def plain_label(text: Any) -> str:
    """A user-chosen name as plain text for a chart label: Plotly renders a subset of HTML
    (`<a href>`, `<b>`, ...) in labels, so tags are stripped and angle brackets escaped."""
    return strip_tags(str(text)).replace("<", "&lt;").replace(">", "&gt;")


# ---- JSON -----------------------------------------------------------------------------------


class JsonInvalid(ValueError):
    """A JSON document refused; the message says why (and names the limit)."""


def _reject_constant(name: str):
    raise JsonInvalid(f"{name} is not a number JSON allows")


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise JsonInvalid(f"the number {text[:40]} is out of range")
    return number


MAX_JSON_INT_DIGITS = 30


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_JSON_INT_DIGITS:
        raise JsonInvalid(f"an integer of more than {MAX_JSON_INT_DIGITS} digits")
    return int(text)


def check_json(
    value: Any, *, max_depth: int = MAX_JSON_DEPTH, where: str = "", allow_nul: bool = False
) -> Any:
    """Walk a parsed document without recursion: bounded depth, no NUL in keys or strings
    (unless `allow_nul`: a request body whose fields report it themselves), only finite numbers
    of at most MAX_JSON_INT_DIGITS digits. Returns the value; raises JsonInvalid naming the
    path."""
    stack: list[tuple[Any, int, str]] = [(value, 1, where)]
    while stack:
        item, depth, path = stack.pop()
        if depth > max_depth:
            raise JsonInvalid(f"nested more than {max_depth} levels deep at {path or 'the top'}")
        if isinstance(item, dict):
            for key, child in item.items():
                if not allow_nul and "\x00" in str(key):
                    raise JsonInvalid(f"a key at {path or 'the top'} holds a NUL character")
                stack.append((child, depth + 1, f"{path}.{key}" if path else str(key)))
        elif isinstance(item, list):
            stack.extend(
                (child, depth + 1, f"{path}.{i}" if path else str(i))
                for i, child in enumerate(item)
            )
        elif isinstance(item, str):
            if not allow_nul and "\x00" in item:
                raise JsonInvalid(f"{path or 'the value'} holds a NUL character")
        elif isinstance(item, float) and not math.isfinite(item):
            raise JsonInvalid(f"{path or 'the value'} is not a finite number")
        elif isinstance(item, int) and abs(item) >= 10**MAX_JSON_INT_DIGITS:
            raise JsonInvalid(f"{path or 'the value'} has more than {MAX_JSON_INT_DIGITS} digits")
    return value


def loads_json(
    text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH, allow_nul: bool = False
) -> Any:
    """json.loads for untrusted text: depth, NUL, finite numbers and integer size checked;
    every refusal is a JsonInvalid with a message for the user."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise JsonInvalid("not UTF-8 text") from exc
    try:
        value = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            parse_int=_bounded_int,
        )
    except RecursionError as exc:
        raise JsonInvalid(f"nested more than {max_depth} levels deep") from exc
    except JsonInvalid:
        raise
    except ValueError as exc:  # JSONDecodeError, and integers over Python's 4,300 digits
        raise JsonInvalid(f"not valid JSON: {str(exc)[:200]}") from exc
    return check_json(value, max_depth=max_depth, allow_nul=allow_nul)
