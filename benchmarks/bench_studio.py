"""What the studio benchmarks (faults, load, sweeps) share: their own database, and a starter
design owned by a benchmark user. Imported by the scripts in this folder (run as
`python benchmarks/bench_x.py`, so this folder is on the path)."""

from __future__ import annotations

import os
from urllib.parse import urlparse


def create_database(database_url: str) -> None:
    """Create the database `database_url` names when it does not exist yet."""
    import psycopg

    parsed = urlparse(database_url)
    name = parsed.path.lstrip("/")
    admin = parsed._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as connection:
        exists = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [name]
        ).fetchone()
        if not exists:
            connection.execute(f'CREATE DATABASE "{name}"')


def starter_design(username: str, label: str):
    """(user, design): the 256-GPU starter example in a team of the benchmark user `username`,
    created on the first call (Django must be set up)."""
    from django.contrib.auth import get_user_model

    from studio.accounts.services import team_create
    from studio.designs.models import Design
    from studio.designs.services import design_create_from_example, project_create

    user, _ = get_user_model().objects.get_or_create(username=username)
    design = Design.objects.filter(project__team__memberships__user=user).first()
    if design is None:
        team = team_create(actor=user, name=f"Bench {label} {os.getpid()}")
        project = project_create(actor=user, team=team, name=label.capitalize())
        design = design_create_from_example(
            actor=user, project=project, name="Starter", slug="h100-256-onprem-starter"
        )
    return user, design
