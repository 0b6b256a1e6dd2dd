"""Every download URL (spec.json, CSV/XLSX exports, figures, config archives, PDFs) answers a
script with an API token exactly as it answers the signed-in user, a feed token within its one
project, and an anonymous caller never with the data."""

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from studio.accounts.download_auth import is_token_readable
from studio.accounts.tokens import token_create
from studio.reports.models import Report
from studio.runs.views import figures_key

pytestmark = pytest.mark.django_db

# A route that names a file (spec.json, designs.csv, report.pdf, ...) is a download.
DOWNLOAD_ROUTE = re.compile(r"\.(json|csv|xlsx|pdf|zip)\b|\(\?P<fmt>")


def _patterns(resolver=None, prefix=""):
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            if entry.app_name == "admin" or str(entry.pattern) == "api/":
                continue  # admin: staff only; api/: DRF authenticates tokens itself
            yield from _patterns(entry, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern) and entry.name:
            yield entry.name, prefix + str(entry.pattern), entry.callback


SWEEP = {
    "axes": [{"path": "economics.utilisation", "values": [0.6, 0.8]}],
    "constraints": {},
    "objectives": ["tco"],
}


@pytest.fixture
def downloads(evaluated, django_capture_on_commit_callbacks):
    from studio.runs.sweeps import services as sweep_services

    design, run = evaluated
    alice = design.project.team.memberships.first().user
    with django_capture_on_commit_callbacks(execute=True):
        sweep = sweep_services.sweep_create(actor=alice, design=design, definition=SWEEP)
    report = Report.objects.create(
        project=design.project, title="R", covers=[], pdf=b"%PDF-1.4 test", pdf_status="done"
    )
    return (
        design,
        run,
        {
            "design-spec-json": {"pk": design.pk},
            "export-project-designs": {"pk": design.project.pk, "fmt": "csv"},
            "export-run-table": {"pk": run.pk, "table": "memory", "fmt": "xlsx"},
            "export-design-spec": {"pk": design.pk, "fmt": "xlsx"},
            "run-figures": {"pk": run.pk, "key": figures_key(run)},
            "run-network-configs": {"pk": run.pk},
            "api-run-network-configs": {"pk": run.pk},
            "report-pdf": {"pk": report.pk},
            "sweep-export": {"pk": sweep.pk, "fmt": "csv"},
            "run-dcim-export": {"pk": run.pk},
            "api-run-dcim-export": {"pk": run.pk},
            "run-cable-schedule": {"pk": run.pk, "fmt": "xlsx"},
            "api-run-cable-schedule": {"pk": run.pk, "fmt": "csv"},
        },
    )


def test_every_download_route_takes_tokens(downloads):
    """A new download URL must be marked token_readable and listed in `downloads` above."""
    _, _, known = downloads
    download_names = set()
    for name, route, callback in _patterns():
        if DOWNLOAD_ROUTE.search(route):
            assert is_token_readable(callback), f"{name} ({route}) is not token_readable"
        if is_token_readable(callback):
            download_names.add(name)
    assert download_names == set(known)


def test_a_bearer_token_gets_what_the_session_gets(client, downloads):
    design, _, known = downloads
    alice = design.project.team.memberships.first().user
    _, key = token_create(actor=alice, name="excel")
    bearer = {"Authorization": f"Bearer {key}"}
    ok = 0
    for name, kwargs in known.items():
        url = reverse(name, kwargs=kwargs)
        anonymous = client.get(url)
        assert anonymous.status_code in (302, 401, 404), (url, anonymous.status_code)
        if anonymous.status_code == 302:
            assert "/accounts/login/" in anonymous["Location"]
        by_token = client.get(url, headers=bearer)
        client.force_login(alice)
        by_session = client.get(url)
        client.logout()
        assert by_token.status_code == by_session.status_code, url
        assert by_token["Content-Type"] == by_session["Content-Type"], url
        assert "text/html" not in by_token["Content-Type"], url
        ok += by_token.status_code == 200
    assert ok >= 9  # the network archive may be a 404 for a design without a network plan


def test_spec_json_with_a_bearer_token_is_json(client, downloads):
    design, _, _ = downloads
    alice = design.project.team.memberships.first().user
    _, key = token_create(actor=alice, name="script")
    url = f"/designs/{design.pk}/spec.json"

    response = client.get(url, headers={"Authorization": f"Bearer {key}"})

    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert response.json() == design.latest_revision.spec
    bad = client.get(url, headers={"Authorization": "Bearer cs_api_not-a-token"})
    assert bad.status_code == 401 and "token" in bad.json()["detail"].lower()


def test_a_token_opens_only_its_teams_downloads(client, downloads, team_b, design_in):
    design, _, _ = downloads
    bob, bravo = team_b
    other = design_in(bob, bravo, name="Bravo design")
    _, key = token_create(actor=design.project.team.memberships.first().user, name="s")
    response = client.get(
        f"/designs/{other.pk}/spec.json", headers={"Authorization": f"Bearer {key}"}
    )
    assert response.status_code == 404


def test_a_feed_token_reads_its_project_only(client, downloads, team_a, design_in):
    from studio.core.models import AuditEvent
    from studio.designs import services

    design, _, _ = downloads
    alice, _ = team_a
    _, key = token_create(actor=alice, name="sheet", kind="feed", project=design.project)
    other_project = services.project_create(actor=alice, team=team_a[1], name="Other")
    other = services.design_create(
        actor=alice,
        project=other_project,
        name="Elsewhere",
        spec=design.latest_revision.spec,
        message="copy",
    )

    assert client.get(f"/designs/{design.pk}/spec.json?token={key}").status_code == 200
    assert client.get(f"/designs/{other.pk}/spec.json?token={key}").status_code == 404
    assert AuditEvent.objects.filter(action="feed.read", project=design.project).exists()
    # The feed token is no session: an HTML page still asks to log in.
    assert client.get(f"/designs/{design.pk}/?token={key}").status_code == 302
