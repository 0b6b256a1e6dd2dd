"""The evidence grade beside each headline number, for one design: the engine's nearest published
references (`models_engine.design_evidence`: same GPU generation, similar scale, same stack) and
its error there. The results page, the design page and the report all read it from here, so a
number carries the same grade everywhere; each grade links to the validation page filtered to
the references it was computed from."""

from dataclasses import dataclass
from urllib.parse import urlencode

from django.urls import reverse

from models_engine import GRADE_RULES, design_evidence, design_facts


@dataclass(frozen=True)
class HeadlineEvidence:
    grade: str  # "A" | "B" | "C" | "D" | "-"
    text: str  # what the reader sees (counts, median and max error, families)
    rule: str  # what the grade means
    url: str  # the validation page filtered to these references ("" when there are none)


def performance_stack(results: dict | None) -> str | None:
    """The software stack the performance engine ran the design with, from the stored results."""
    stack = ((results or {}).get("performance") or {}).get("software_stack") or {}
    return stack.get("name")


def _url(evidence) -> str:
    """The panel filtered to the references graded; with none near (D), to the engine's."""
    if evidence.reference_ids:
        query = {"ids": ",".join(evidence.reference_ids)}
    elif len(evidence.engines) == 1:
        query = {"engine": evidence.engines[0]}
    else:
        return ""
    return f"{reverse('validation')}?{urlencode(query)}"


def headline_evidence(spec: dict | None, stack: str | None, keys: list[str]) -> dict:
    """{headline key: HeadlineEvidence} for a design's stored spec and the software stack its
    performance result was modelled with."""
    if not spec:
        return {}
    facts = design_facts(spec, stack=stack)
    return {
        key: HeadlineEvidence(
            grade=evidence.grade,
            text=evidence.text,
            rule=GRADE_RULES[evidence.grade],
            url=_url(evidence),
        )
        for key, evidence in design_evidence(facts, keys).items()
    }


def run_evidence(run, results, keys: list[str]) -> dict:
    """The evidence of a finished run's headline numbers, from its typed results (empty for
    none)."""
    if run is None or results is None:
        return {}
    performance = results.performance
    used = performance.software_stack if performance else None
    return headline_evidence(run.revision.spec, used.name if used else None, keys)
