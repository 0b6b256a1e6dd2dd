"""Pages built once from immutable runs (results, figures, comparison) stay behind the team and
role checks of every request, and are not rebuilt per request."""

import gzip
import json
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from studio.core.process_cache import ProcessCache
from studio.reports import charts
from studio.runs import services
from studio.runs.figures import COMPARED_FIGURES
from studio.runs.models import ComparisonFigures
from studio.runs.views import CSRF_PLACEHOLDER, RESULTS_BODIES
from tests.studio.runs.page_figures import page_figures

pytestmark = pytest.mark.django_db


def _evaluated(user, design):
    run = services.run_enqueue(actor=user, revision=design.latest_revision, dispatch=False)
    return services.run_execute(run_id=run.pk)


def _figures_url(page: str) -> str:
    return re.search(r'data-figures-url="([^"]+)"', page).group(1)


def test_cached_results_reach_only_members_and_forms_get_each_requests_token(
    client, team_a, team_b, make_member, design_in
):
    alice, alpha = team_a
    bob, _ = team_b
    carol, _ = make_member("carol", "Alpha", role="editor")
    viewer, _ = make_member("vic", "Alpha", role="viewer")
    design = design_in(alice, alpha, slug="dgx-h100-superpod-4su")  # has failing checks
    run = _evaluated(alice, design)
    client.force_login(alice)
    alice_page = client.get(f"/runs/{run.pk}/").content.decode()
    assert 'name="check_id"' in alice_page  # the accept-risk form, for an editor
    url = _figures_url(alice_page)

    client.force_login(bob)  # another team: not found, although the page is cached
    assert client.get(f"/runs/{run.pk}/").status_code == 404
    assert client.get(url).status_code == 404

    client.force_login(viewer)  # same team, viewer: the viewers' rendering, no form
    viewer_page = client.get(f"/runs/{run.pk}/").content.decode()
    assert 'id="results-security"' in viewer_page and 'name="check_id"' not in viewer_page

    # Another editor gets the cached editors' rendering with a token that works for her.
    carol_client = Client(enforce_csrf_checks=True)
    carol_client.force_login(carol)
    carol_page = carol_client.get(f"/runs/{run.pk}/").content.decode()
    assert CSRF_PLACEHOLDER not in carol_page and CSRF_PLACEHOLDER not in alice_page
    assert RESULTS_BODIES.builds == 2  # one editors' and one viewers' rendering, no more
    form = carol_page.split('<details class="accept">')[1].split("</form>")[0]
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    check_id = re.search(r'name="check_id" value="([^"]+)"', form).group(1)
    accepted = carol_client.post(
        f"/designs/{design.pk}/risks/accept/",
        {
            "csrfmiddlewaretoken": token,
            "check_id": check_id,
            "reason": "single-tenant fabric",
            "owner": "CISO office",
            "expires": "2099-01-01",
            "run": run.pk,
        },
    )
    assert accepted.status_code == 302, accepted.content[:300]


def test_figures_come_from_an_immutable_url_once_per_browser(client, team_a, design_in):
    alice, alpha = team_a
    run = _evaluated(alice, design_in(alice, alpha))
    client.force_login(alice)
    page = client.get(f"/runs/{run.pk}/").content.decode()
    assert 'type="application/json"' not in page  # no figure JSON inline: the HTML stays small
    url = _figures_url(page)
    figures = page_figures(client, page)
    stored = {f["id"]: f["spec"] for s in run.__class__.objects.get(pk=run.pk).figures["sections"]
              for f in s["figures"]}  # fmt: skip
    assert figures == json.loads(json.dumps(stored))

    zipped = client.get(url, headers={"Accept-Encoding": "gzip, br"})
    assert zipped["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(zipped.content)) == figures
    assert "immutable" in zipped["Cache-Control"] and "private" in zipped["Cache-Control"]
    again = client.get(url, headers={"If-None-Match": zipped["ETag"]})
    assert again.status_code == 304 and not again.content
    stale = url.replace(url.rsplit("/", 1)[1], "0" * 20 + ".json")
    assert client.get(stale).status_code == 404
    for _ in range(3):
        client.get(f"/runs/{run.pk}/")
    assert RESULTS_BODIES.builds == 1


def test_compare_page_builds_its_figures_once_with_the_same_values(
    client, team_a, team_b, design_in, monkeypatch
):
    alice, alpha = team_a
    bob, _ = team_b
    first = design_in(alice, alpha, name="Starter")
    second = services_design(alice, first.project, "Superpod", "dgx-h100-superpod-4su")
    for design in (first, second):
        _evaluated(alice, design)
    built = []
    original = charts.metric_bars
    monkeypatch.setattr(charts, "metric_bars", lambda *a: built.append(1) or original(*a))
    client.force_login(alice)
    url = f"/compare/?design={first.pk}&design={second.pk}"
    pages = [client.get(url).content.decode() for _ in range(3)]
    assert len(built) == 1 and COMPARED_FIGURES.builds == 1
    cached = _inline_figures(pages[2])
    assert cached == _inline_figures(pages[0]) and len(cached) >= 5
    assert cached["figure-bar-capex_usd"]["data"][0]["x"] == ["Starter", "Superpod"]
    ProcessCache.clear_all()  # another web process: reads the stored figures, builds nothing
    assert _inline_figures(client.get(url).content.decode()) == cached
    assert len(built) == 1 and ComparisonFigures.objects.count() == 1
    ComparisonFigures.objects.all().delete()
    ProcessCache.clear_all()  # built afresh, as on every request before: the same figures
    assert _inline_figures(client.get(url).content.decode()) == cached
    assert len(built) == 2

    again = services.run_enqueue(actor=alice, revision=second.latest_revision)
    assert again.cached_from_id  # evaluated again, unchanged: a new run with the same results
    page = client.get(url).content.decode()
    assert f"run #{again.pk}" in page and _inline_figures(page) == cached
    assert len(built) == 2  # the same results: the same figures, not rebuilt

    client.force_login(bob)  # another team: refused before the cache is consulted
    assert client.get(url).status_code == 404

    client.force_login(alice)
    second.name = "Superpod v2"  # a name is part of the figures: a rename rebuilds them
    second.save(update_fields=["name"])
    renamed = _inline_figures(client.get(url).content.decode())
    assert len(built) == 3
    bars = renamed["figure-bar-capex_usd"]["data"][0]
    assert bars["x"] == ["Starter", "Superpod v2"]
    assert bars["y"] == cached["figure-bar-capex_usd"]["data"][0]["y"]


def test_project_page_reads_a_fixed_number_of_queries(client, team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    _evaluated(alice, design)
    client.force_login(alice)
    url = f"/projects/{design.project_id}/"

    captured_last = []

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        captured_last[:] = captured.captured_queries
        return len(captured)

    queries()  # the first read of a run in a process parses its results (one query per run)
    one = queries()
    for n in range(3):
        _evaluated(alice, services_design(alice, design.project, f"More {n}"))
    queries()
    assert queries() == one, "\n".join(q["sql"][:150] for q in captured_last)


def services_design(user, project, name, slug="h100-256-onprem-starter"):
    from studio.designs import services as design_services
    from tests.conftest import example_spec

    return design_services.design_create(
        actor=user, project=project, name=name, spec=example_spec(slug), message="test"
    )


def _inline_figures(page: str) -> dict:
    scripts = re.findall(
        r'<script id="(figure-[^"]+)" type="application/json">(.*?)</script>', page
    )
    return {script_id: json.loads(body) for script_id, body in scripts}


def test_stored_comparisons_are_capped_newest_kept(monkeypatch):
    from studio.runs import figures

    monkeypatch.setattr(figures, "STORED_COMPARISONS", 2)
    for digest in ("a" * 64, "b" * 64, "c" * 64):
        figures._stored_or_built(digest, lambda digest=digest: [{"id": digest[:1]}])
    kept = set(ComparisonFigures.objects.values_list("key", flat=True))
    assert kept == {"b" * 64, "c" * 64}
    # A pruned comparison is simply built again when asked for.
    assert figures._stored_or_built("a" * 64, lambda: [{"id": "again"}]) == [{"id": "again"}]
