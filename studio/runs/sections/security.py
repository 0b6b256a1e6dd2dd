"""Security section: grade, score and counts; the checks to act on (failures and accepted
risks, with evidence, remediation, references and the accept-risk form for a failure); the
other checks in a collapsed table."""

from models_engine import SecurityResult
from studio.runs.headline import checks_for_review
from studio.runs.sections.blocks import (
    BR,
    AcceptRiskForm,
    Block,
    Card,
    Cards,
    Cell,
    Column,
    Group,
    Heading,
    Paragraph,
    Row,
    cell,
    code,
    link,
    span,
    table,
    text,
)
from studio.runs.sections.common import accept_risk_url, small
from studio.runs.sections.format import DASH, number
from studio.runs.selectors import TypedResults

TO_ACT_ON = ("FAIL", "ACCEPTED_RISK")


def blocks(results: TypedResults, run=None) -> list[Block]:
    security = results.security
    if security is None:
        return []
    checks = checks_for_review(results)
    action = accept_risk_url(run) if run is not None else ""
    to_act_on = [c for c in checks if c["status"] in TO_ACT_ON]
    others = [c for c in checks if c["status"] not in TO_ACT_ON]
    summary = security.summary
    return [
        Cards(key_figures(security), css="headline-cards"),
        Paragraph(text(security.score.rule), css="muted small"),
        Heading(text("Findings to act on")),
        table(
            "security-findings",
            FINDING_COLUMNS,
            [finding_row(check, action, run) for check in to_act_on],
            css="grid findings",
            scroll=False,
        ),
        Group(
            [
                table(
                    "security-other-checks",
                    OTHER_COLUMNS,
                    [other_row(check) for check in others],
                    css="grid findings",
                    scroll=False,
                )
            ],
            summary=f"The other checks: {summary.get('manual')} need manual evidence, "
            f"{summary.get('pass')} pass, {summary.get('not_applicable')} do not apply",
            id="other-checks",
        ),
    ]


def key_figures(security: SecurityResult) -> list[Card]:
    score, summary = security.score, security.summary
    capped = ", ".join(str(c) for c in score.capped_by)
    return [
        Card(
            "Grade",
            score.grade or DASH,
            note=f"capped by {capped}" if capped else "uncapped",
            status=f"grade-{score.grade}" if score.grade else "",
        ),
        Card(
            "Score",
            number(score.overall_pct, 1),
            "%",
            "of severity-weighted automated checks",
        ),
        Card(
            "Failing",
            str(summary.get("fail", 0)),
            note=f"of {summary.get('total')} checks ({summary.get('manual')} need manual evidence)",
            status="bad",
        ),
        Card(
            "Accepted risks",
            str(summary.get("accepted_risk", 0)),
            note=f"rules v{security.rules_version}",
        ),
    ]


FINDING_COLUMNS = [
    Column("check"),
    Column("severity"),
    Column("category"),
    Column("result"),
    Column("evidence"),
    Column("remediation"),
]
OTHER_COLUMNS = [
    Column("check"),
    Column("severity"),
    Column("category"),
    Column("result"),
    Column("evidence / what to attest"),
]


def _result(status: str):
    compact = status.replace("_", "").lower()
    return span(compact, f"result result-{compact}")


def _evidence(check: dict):
    parts = []
    for path, value in (check.get("evidence") or {}).items():
        parts += [code(path), f" = {value}", BR]
    return cell(text(*parts), "small")


def _common(check: dict) -> list:
    return [
        text(code(check["id"]), BR, check.get("title")),
        span(check["severity"], f"sev sev-{check['severity']}"),
        check.get("category"),
    ]


def finding_row(check: dict, action: str, run) -> Row:
    accepted = check.get("accepted_risk")
    result = text(
        _result(check["status"]),
        accepted and BR,
        accepted
        and small(
            f"accepted by {accepted.get('owner')} until {accepted.get('expires')}: "
            f"{accepted.get('reason')}"
        ),
    )
    remediation = [check.get("remediation") or ""]
    for reference in check.get("references") or []:
        remediation += [BR, link(reference.get("title"), reference.get("url"))]
    form = (
        AcceptRiskForm(check["id"], action, run.pk)
        if action and check["status"] == "FAIL"
        else None
    )
    cells = [cell(c) for c in _common(check)]
    cells += [cell(result), _evidence(check), Cell(text(*remediation), "small", form=form)]
    return Row(cells, f"status-{check['status'].lower()}")


def other_row(check: dict) -> list:
    attest = (
        cell(check.get("remediation") or "", "small")
        if check["status"] == "MANUAL"
        else _evidence(check)
    )
    return [*_common(check), _result(check["status"]), attest]
