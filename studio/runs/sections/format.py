"""How every number of the results sections is written: thousands separators, a fixed number
of decimals per quantity, fractions as percentages, and "—" for a value the engine did not
give."""

import math

DASH = "—"
TIMES = "\u00d7"  # the multiplication sign


def number(value, decimals: int = 0, *, trim: bool = False) -> str:
    """`1,234.5`; "—" for None. `trim` drops trailing zeros (`0.50` -> `0.5`, `2.00` -> `2`)."""
    if value is None or isinstance(value, bool):
        return DASH
    written = f"{value:,.{decimals}f}"
    if trim and "." in written:
        written = written.rstrip("0").rstrip(".")
    return "0" if written == "-0" else written


def count(value) -> str:
    """A whole number: `16,384`."""
    return number(value, 0)


def percent(fraction, decimals: int = 1) -> str:
    """A fraction as a percentage: 0.4312 -> `43.1 %`."""
    if fraction is None:
        return DASH
    return f"{number(fraction * 100, decimals)} %"


def signed_percent(fraction, decimals: int = 1) -> str:
    """A signed fraction as a percentage: -0.069 -> `-6.9 %`, 0.03 -> `+3.0 %`."""
    if fraction is None:
        return DASH
    sign = "+" if fraction >= 0 else "-"
    return f"{sign}{number(abs(fraction) * 100, decimals)} %"


def percent_number(fraction, decimals: int = 1) -> str:
    """A fraction as a percentage without the sign (the column header says %)."""
    return DASH if fraction is None else number(fraction * 100, decimals)


def usd(value, decimals: int = 0) -> str:
    """`$1,234`; "—" for None."""
    return DASH if value is None else f"${number(value, decimals)}"


def yes_no(value, yes: str = "yes", no: str = "no") -> str:
    if value is None:
        return DASH
    return yes if value else no


def joined(parts, separator: str = " · ") -> str:
    """The non-empty parts, joined."""
    return separator.join(part for part in parts if part)


def label(key: str) -> str:
    """An engine key as words: `optimizer_states` -> `Optimizer states`."""
    words = key.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def amount(value) -> str:
    """A quantity of any size with the decimals its size needs, trailing zeros dropped:
    `12,345`, `123.4`, `1.23`, `0.012`, `40`."""
    if value is None or isinstance(value, bool):
        return DASH
    size = abs(value)
    if size >= 0.1 or size == 0:
        decimals = 0 if size >= 100 else 1 if size >= 10 else 2
    else:  # two significant digits
        decimals = 1 - math.floor(math.log10(size))
    return number(value, decimals, trim=True)
