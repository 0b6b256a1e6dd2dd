"""What-ifs re-evaluate without saving; "save as revision" makes exactly one revision with the
what-if in its message; a value the engine refuses is a 400 naming the control."""

import copy

import pytest

from models_engine import evaluate_headline
from studio.reviews import services
from studio.reviews.whatif import applied, what_if
from tests.conftest import example_spec
from tests.studio.reviews.conftest import evaluate

pytestmark = pytest.mark.django_db

INPUTS = {
    "gpu_count": "16384",
    "gpu_sku": "h100-sxm-80gb",
    "oversubscription": "7",
    "checkpoint_interval_min": "auto",
    "utilisation": "0.9",
}


@pytest.fixture
def big(crew, design_in):
    design = design_in(crew["alice"], crew["team"], slug="llama3-16k-h100-roce")
    evaluate(design.latest_revision)
    review = services.review_request(
        actor=crew["alice"], project=design.project, designs=[design], reviewers=[crew["bob"]]
    )
    return design, review


def test_site_split_keeps_whole_nodes_and_the_other_sites_proportions():
    spec = example_spec("two-region-hierarchical")  # 2,048 GPUs in 8-GPU nodes: 256 nodes
    changed, changes = applied(spec, {"site_share": 0.7})
    shares = [site["gpu_share"] for site in changed["regions"]["sites"]]
    assert shares == [179 / 256, 77 / 256]  # 0.7 x 256 = 179.2 nodes: 179 whole ones
    assert changes == [("regions.sites.0.gpu_share", 0.5, round(179 / 256, 4))]
    assert spec["regions"]["sites"][0]["gpu_share"] == 0.5  # the revision's spec is untouched
    evaluate_headline(changed)  # the engine takes it (no site with part of a node)
    three = copy.deepcopy(spec)
    three["regions"]["sites"].append({**three["regions"]["sites"][1], "id": "third"})
    three["regions"]["sites"][1]["gpu_share"] = three["regions"]["sites"][2]["gpu_share"] = 0.25
    split, _ = applied(three, {"site_share": 0.5})
    assert [s["gpu_share"] * 256 for s in split["regions"]["sites"]] == [128, 64, 64]


def test_a_what_if_changes_the_headline_without_a_revision(client, crew, big):
    design, _ = big
    client.force_login(crew["vera"])  # viewers may try what-ifs
    response = client.post(f"/designs/{design.pk}/what-if/", {**INPUTS, "utilisation": "0.6"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "economics.utilisation" in page and 'data-metric="usd_per_gpu_hour"' in page
    assert design.revisions.count() == 1
    base = what_if(design, {})
    fewer = what_if(design, {"gpu_count": 8192})
    assert fewer.headline["capex_usd"] < base.headline["capex_usd"]
    assert fewer.headline["time_to_train_days"] > base.headline["time_to_train_days"]


def test_save_as_revision_creates_exactly_one(client, crew, big):
    design, _ = big
    client.force_login(crew["vera"])
    assert client.post(f"/designs/{design.pk}/what-if/save/", INPUTS).status_code == 403
    client.force_login(crew["bob"])
    data = {**INPUTS, "oversubscription": "3", "checkpoint_interval_min": "45"}
    response = client.post(f"/designs/{design.pk}/what-if/save/", data)
    assert response.status_code == 201
    assert design.revisions.count() == 2
    latest = design.latest_revision
    assert latest.spec["fabric"]["oversubscription"]["spine"] == 3.0
    assert latest.spec["storage"]["checkpoint"]["interval_min"] == 45
    assert "fabric.oversubscription.spine 7.0 → 3.0" in latest.message
    # The same what-if again is no change: no second revision.
    again = client.post(f"/designs/{design.pk}/what-if/save/", data)
    assert again.status_code == 400 and design.revisions.count() == 2


def test_bad_what_if_input_is_a_400_naming_the_control(client, crew, big):
    design, _ = big
    client.force_login(crew["bob"])
    for field, value, message in (
        ("gpu_count", "60", "multiple of"),  # the engine: whole 8-GPU nodes
        ("utilisation", "1.5", "less than or equal to 1"),
        ("gpu_sku", "no-such-gpu", "Select a valid choice"),
        ("checkpoint_interval_min", "soon", "minutes between checkpoints"),
        ("oversubscription", "nan", "Enter a number"),
    ):
        response = client.post(f"/designs/{design.pk}/what-if/", {**INPUTS, field: value})
        assert response.status_code == 400, field
        assert message in response.content.decode(), (field, response.content[:400])
    assert design.revisions.count() == 1
