"""The review API: ask, comment, give verdicts, resolve; scoped to the team; bad input 400."""

import pytest

from studio.reports import services as report_services
from studio.reviews.selectors import Status

pytestmark = pytest.mark.django_db


def test_review_round_trip_through_the_api(client, crew, reviewed, make_member):
    design, _ = reviewed
    client.force_login(crew["alice"])
    created = client.post(
        "/api/reviews/",
        {"project": design.project.pk, "designs": [design.pk], "reviewers": ["bob", "vera"]},
        content_type="application/json",
    )
    assert created.status_code == 201, created.content
    review = created.json()
    assert review["status"] == Status.IN_REVIEW and review["reviewers"] == ["bob", "vera"]

    client.force_login(crew["bob"])
    url = f"/api/reviews/{review['id']}/"
    comment = client.post(
        url + "comments/",
        {
            "body": "Capex?",
            "anchor_kind": "headline",
            "anchor_key": "capex_usd",
            "design": design.pk,
        },
        content_type="application/json",
    )
    assert comment.status_code == 201 and comment.json()["anchor_value"] > 0
    verdict = client.post(url + "verdicts/", {"kind": "approve"}, content_type="application/json")
    assert verdict.status_code == 201 and verdict.json()[0]["revision_number"] == 1
    assert client.get(url).json()["status"] == Status.APPROVED
    assert [c["body"] for c in client.get(url + "comments/").json()] == ["Capex?"]
    resolved = client.post(
        f"/api/review-comments/{comment.json()['id']}/resolve/",
        {"resolved": True},
        content_type="application/json",
    )
    assert resolved.status_code == 200 and resolved.json()["resolved"] is True

    client.force_login(crew["vera"])
    refused = client.post(url + "verdicts/", {"kind": "approve"}, content_type="application/json")
    assert refused.status_code == 403

    outsider, _ = make_member("oscar", "Bravo")
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    assert client.get("/api/reviews/").json()["results"] == []


def test_api_bad_input_names_the_field(client, crew, reviewed):
    design, review = reviewed
    client.force_login(crew["bob"])
    url = f"/api/reviews/{review.pk}/"
    for payload, field in (
        ({"body": "x", "anchor_kind": "spec", "anchor_key": "no.such"}, "anchor_key"),
        ({"body": "x", "anchor_kind": "weird"}, "anchor_kind"),
        ({"body": ""}, "body"),
    ):
        response = client.post(
            url + "comments/", {"design": design.pk, **payload}, content_type="application/json"
        )
        assert response.status_code == 400 and field in response.json(), payload
    response = client.post(url + "verdicts/", {"kind": "maybe"}, content_type="application/json")
    assert response.status_code == 400 and "kind" in response.json()
    client.force_login(crew["alice"])
    response = client.post(
        "/api/reviews/",
        {"project": design.project.pk, "designs": [design.pk], "reviewers": ["nobody"]},
        content_type="application/json",
    )
    assert response.status_code == 400 and "reviewers" in response.json()


def test_report_sign_off_page_lists_reviewers_verdicts_and_open_comments(client, crew, reviewed):
    from studio.reviews import services

    design, review = reviewed
    services.comment_add(actor=crew["bob"], review=review, body="Check the PUE source")
    services.verdict_give(actor=crew["bob"], review=review, kind="approve")
    report = report_services.report_create(
        actor=crew["alice"],
        project=design.project,
        title="Board pack",
        summary="",
        designs=[design],
        dispatch=False,
    )
    signoff = report.covers[0]["signoff"]
    assert signoff["status"] == Status.APPROVED
    assert signoff["reviewers"][0] | {"date": ""} == {
        "name": "bob",
        "verdict": "Approve",
        "date": "",
        "revision": 1,
        "stale": False,
    }
    assert [c["body"] for c in signoff["open_comments"]] == ["Check the PUE source"]
    client.force_login(crew["vera"])
    page = client.get(f"/reports/{report.pk}/").content.decode()
    assert 'id="signoff"' in page and "Check the PUE source" in page and "Approve" in page


def test_review_lists_filter_by_project_and_design(client, crew, reviewed):
    design, review = reviewed
    client.force_login(crew["bob"])
    ids = [r["id"] for r in client.get(f"/api/reviews/?design={design.pk}").json()["results"]]
    assert ids == [review.pk]
    assert client.get(f"/api/reviews/?design={design.pk + 1000}").json()["results"] == []
    assert client.get("/api/reviews/?project=x").status_code == 400
    assert client.get("/api/reviews.api/?project=-1").status_code == 400
