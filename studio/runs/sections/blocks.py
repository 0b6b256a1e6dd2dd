"""The pieces a results section is made of, each already formatted: the templates under
`runs/blocks/` only loop over them and print strings (every number, unit, "—" and
"show this or that" decision is made here, in Python).

A block is one of: `Heading`, `Cards`, `Table`, `Paragraph`, `BulletList`, `Definitions`,
`Group` (a box or a collapsible <details> holding more blocks). Inline text is a tuple of
`Inline` parts (plain text, <code>, <strong>, a severity badge, a link, a line break); each
part writes its own escaped HTML (`__html__`), so a template prints it with `{{ part }}`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.utils.html import format_html
from django.utils.safestring import mark_safe

# ---------------------------------------------------------------- inline text


@dataclass(frozen=True)
class Inline:
    """A run of text: `tag` "" (plain), "code", "strong", "span", "a" (with `url`) or "br";
    `css` its class."""

    text: str = ""
    tag: str = ""
    css: str = ""
    url: str = ""
    id: str = ""

    def __html__(self) -> str:
        if self.tag == "br":
            return mark_safe("<br>")
        if self.tag == "a" and self.id:
            return format_html('<a href="{}" id="{}">{}</a>', self.url, self.id, self.text)
        if self.tag == "a":
            return format_html('<a href="{}" rel="noopener noreferrer">{}</a>', self.url, self.text)
        if not self.tag:
            return format_html("{}", self.text)
        if self.css:
            return format_html('<{} class="{}">{}</{}>', self.tag, self.css, self.text, self.tag)
        return format_html("<{}>{}</{}>", self.tag, self.text, self.tag)

    def __str__(self) -> str:
        return self.__html__()


Text = tuple[Inline, ...]
Content = str | Inline | Iterable[Inline]


def text(*parts: str | Inline | None) -> Text:
    """Inline parts from strings and parts (None and "" are left out)."""
    return tuple(p if isinstance(p, Inline) else Inline(p) for p in parts if p)


def as_text(content: Content | None) -> Text:
    if content is None or content == "":
        return ()
    if isinstance(content, str | Inline):
        return text(content)
    return tuple(content)


def code(value: str, css: str = "") -> Inline:
    return Inline(value, "code", css)


def strong(value: str) -> Inline:
    return Inline(value, "strong")


def span(value: str, css: str) -> Inline:
    return Inline(value, "span", css)


def muted(value: str) -> Inline:
    return span(value, "muted")


def severity(value: str) -> Inline:
    return span(value, f"sev sev-{value} rc-sev-{value}")


def badge(value: str) -> Inline:
    return span(value, "badge")


def link(value: str, url: str, id: str = "") -> Inline:
    """A link; one with an `id` is the studio's own (a download), one without leaves it."""
    return Inline(value, "a", url=url, id=id)


BR = Inline(tag="br")
NO_PRICE = span("no price", "rc-unpriced")


@dataclass(frozen=True)
class AcceptRiskForm:
    """The form that accepts the risk of a failing check (shown to editors only)."""

    check_id: str
    action: str
    run_pk: int


# ---------------------------------------------------------------- blocks


@dataclass(frozen=True)
class Heading:
    text: Text
    id: str = ""
    kind: str = "heading"


@dataclass(frozen=True)
class Card:
    """One key figure: `value` in large type, then `unit` and `note` in small type.
    `status` is the value's class ("ok", "bad", "grade-A"); `alert` a warning after the note."""

    label: str
    value: str
    unit: str = ""
    note: str = ""
    status: str = ""
    alert: str = ""

    @property
    def caption(self) -> str:
        return " ".join(part for part in (self.unit, self.note) if part)


@dataclass(frozen=True)
class Cards:
    cards: list[Card]
    id: str = ""
    css: str = "headline-cards rc-key-figures"
    kind: str = "cards"


@dataclass(frozen=True)
class Column:
    label: str
    unit: str = ""
    numeric: bool = False

    @property
    def header(self) -> str:
        return f"{self.label} ({self.unit})" if self.unit else self.label


@dataclass(frozen=True)
class Cell:
    text: Text
    css: str = ""
    colspan: int = 1
    form: AcceptRiskForm | None = None


@dataclass(frozen=True)
class Row:
    cells: list[Cell]
    css: str = ""


def cell(content: Content | Cell | None, css: str = "") -> Cell:
    if isinstance(content, Cell):
        return content
    return Cell(as_text(content), css)


@dataclass(frozen=True)
class Table:
    id: str
    columns: list[Column]
    rows: list[Row]
    totals_row: list[Cell] | None = None
    caption: str = ""
    css: str = "grid rc-table"
    scroll: bool = True
    kind: str = "table"

    def column_values(self, label: str) -> list[str]:
        """The text of one column, row by row (for tests and exports)."""
        index = [c.label for c in self.columns].index(label)
        return [plain(row.cells[index].text) for row in self.rows]

    def totals_value(self, label: str) -> str:
        index = [c.label for c in self.columns].index(label)
        cells, position = self.totals_row or [], 0
        for entry in cells:
            if position == index:
                return plain(entry.text)
            position += entry.colspan
        raise KeyError(label)


def table(
    id: str,
    columns: list[Column],
    rows: Iterable[Iterable[Content | Cell | None] | Row],
    totals: Iterable[Content | Cell | None] | None = None,
    **options,
) -> Table:
    """A table from rows of plain values: numeric columns get the `num` class."""
    built = []
    for row in rows:
        values = row if isinstance(row, Row) else Row(list(row))
        cells = [
            _numeric(cell(value), column)
            for value, column in zip(values.cells, columns, strict=False)
        ]
        built.append(Row(cells, values.css))
    totals_row = _totals(totals, columns) if totals is not None else None
    return Table(id=id, columns=columns, rows=built, totals_row=totals_row, **options)


def _totals(values: Iterable[Content | Cell | None], columns: list[Column]) -> list[Cell]:
    """The totals row: numeric columns right-aligned (`rc-num`), a cell may span columns."""
    cells, position = [], 0
    for value in values:
        entry = cell(value)
        if columns[position].numeric:
            entry = Cell(entry.text, "rc-num", entry.colspan)
        cells.append(entry)
        position += entry.colspan
    return cells


def _numeric(value: Cell, column: Column) -> Cell:
    if column.numeric and "num" not in value.css.split():
        return Cell(value.text, f"num {value.css}".strip(), value.colspan, value.form)
    return value


@dataclass(frozen=True)
class Paragraph:
    text: Text
    id: str = ""
    css: str = ""
    kind: str = "paragraph"


@dataclass(frozen=True)
class BulletList:
    items: list[Text]
    id: str = ""
    css: str = ""
    kind: str = "list"


@dataclass(frozen=True)
class Definitions:
    items: list[tuple[str, str]]
    css: str = "small"
    kind: str = "definitions"


@dataclass(frozen=True)
class Group:
    """Blocks in a box (`css`), or in a collapsible <details> when `summary` is given."""

    blocks: list
    summary: str = ""
    id: str = ""
    css: str = ""
    kind: str = "group"


Block = Heading | Cards | Table | Paragraph | BulletList | Definitions | Group


def plain(parts: Text) -> str:
    """The text of inline parts without markup."""
    return "".join(part.text if part.tag != "br" else "\n" for part in parts)


def findings_list(findings: list[dict], list_id: str, where: str = "path") -> list[Block]:
    """The "Findings" heading and list of an engine's findings (nothing when there are none)."""
    if not findings:
        return []
    items = [
        text(severity(f["severity"]), " ", f["message"], f.get(where) and " ")
        + text(f.get(where) and code(f[where], "muted small"))
        for f in findings
    ]
    return [Heading(text("Findings")), BulletList(items, id=list_id, css="rc-findings")]
