"""The spec reference page is generated from the schema."""

import pytest

from models_engine.spec import field_docs

pytestmark = pytest.mark.django_db


def test_spec_reference_page_documents_every_field(client, team_a):
    client.force_login(team_a[0])
    page = client.get("/docs/spec/").content.decode()
    for row in field_docs():
        assert f"<code>{row['path']}</code>" in page, row["path"]
