"""Django's `{# ... #}` comment ends at the line's end: one spanning lines is printed on the page
as text (a results page once showed its own developer note). Multi-line notes use
`{% comment %}`."""

from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "frontend" / "templates"


def test_no_template_has_a_single_line_comment_that_spans_lines():
    offenders = []
    for template in sorted(TEMPLATES.rglob("*.html")):
        for number, line in enumerate(template.read_text().splitlines(), start=1):
            opened = line.count("{#")
            if opened and opened != line.count("#}"):
                offenders.append(f"{template.relative_to(TEMPLATES)}:{number}")
    assert offenders == []
