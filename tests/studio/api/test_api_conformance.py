"""Schemathesis against a live test server, as a client would call it: with an API token,
every answer of every API operation matches the OpenAPI description (status code included,
e.g. 201 on create, 202 on evaluate, 204 on delete; content type; body schema; headers), and
none is a server error. Examples are few and derandomized so the run stays short and
reproducible; the in-process fuzz test (test_api_fuzz.py) looks for server errors only."""

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from studio.accounts.tokens import token_create
from studio.runs import services as run_services
from tests.conftest import team_gpu_entry

pytestmark = pytest.mark.django_db(transaction=True)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]
EXAMPLES_PER_OPERATION = 8


@pytest.fixture
def world(team_a, design_in):
    """A team's project with a design, a finished run, a draft and a catalog entry, so that
    valid ids exist for the fuzzer to hit (schemathesis also sends ids that do not)."""
    from studio.catalog import services as catalog_services
    from studio.designs import services

    alice, alpha = team_a
    design = design_in(alice, alpha)
    run = run_services.run_enqueue(actor=alice, revision=design.latest_revision, dispatch=False)
    run_services.run_execute(run_id=run.pk)
    services.design_create_blank(actor=alice, project=design.project, name="Draft")
    catalog_services.team_entry_create(actor=alice, team=alpha, kind="gpus", data=team_gpu_entry())
    _, key = token_create(actor=alice, name="conformance", write_enabled=True)
    return {"Authorization": f"Bearer {key}"}


def _check(operation, headers: dict) -> list[int]:
    statuses = []

    @given(case=operation.as_strategy())
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def run(case):
        response = case.call_and_validate(headers=headers, checks=CHECKS)
        statuses.append(response.status_code)

    run()
    return statuses


def test_every_answer_matches_the_openapi_description(live_server, world):
    schema = schemathesis.openapi.from_url(f"{live_server.url}/api/schema/", headers=world)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 30
    seen, failures = {}, []
    for operation in operations:
        try:
            seen[operation.label] = _check(operation, world)
        except Exception as exc:  # collect every operation's failure, then report them all
            failures.append(f"{operation.label}: {exc}")
    assert not failures, "\n\n".join(failures)
    statuses = {status for found in seen.values() for status in found}
    # It reached the app: successes and refused inputs alike.
    assert {200, 400, 404} <= statuses, statuses
