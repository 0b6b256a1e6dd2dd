"""Tenants and pools are chosen in the editor like any other field (the editor is generated
from the spec's schema): the Network tab lists them, a tenant added there reaches the spec."""

import pytest

from models_engine.spec import design_to_dict, parse_design
from studio.designs.editor.codec import form_to_spec, list_add, spec_to_form
from tests.conftest import example_spec


def test_a_tenant_added_in_the_editor_form_reaches_the_spec():
    form = spec_to_form(design_to_dict(parse_design(example_spec("inference-fleet"))))
    form = list_add(form, "network.tenants")
    names = sorted(k for k in form if k.startswith("network.tenants.") and k.endswith(".name"))
    form[names[-1]] = "blue"
    form["network.pools.gpu"] = "10.200.0.0/16"
    spec = parse_design(form_to_spec(form))
    assert [t.name for t in spec.network.tenants] == ["default", "blue"]
    assert spec.network.pools.gpu == "10.200.0.0/16"


@pytest.mark.django_db
def test_editor_page_has_a_network_tab_with_pools_and_tenants(client, team_a, design_in):
    alice, alpha = team_a
    design = design_in(alice, alpha, slug="inference-fleet")
    client.force_login(alice)
    page = client.get(f"/designs/{design.pk}/edit/").content.decode()
    assert 'name="network.pools.p2p"' in page
    assert 'name="network.tenants.0.name"' in page
