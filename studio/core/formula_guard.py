"""Spreadsheet cells that are never run as formulas (ASVS 1.2.10 / OWASP CSV injection): a
text that starts with = + - @ tab, CR or NUL is written with a leading ', and an import takes
that ' off again so a value survives export and re-import unchanged."""

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\0")


def safe_cell(value):
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


def unguarded(text: str) -> str:
    """The text an export guarded with safe_cell, as it was."""
    if text.startswith("'") and text[1:].startswith(FORMULA_TRIGGERS):
        return text[1:]
    return text
