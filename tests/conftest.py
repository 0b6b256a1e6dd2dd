"""Shared fixtures: users in two teams, a project and a design for each."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def example_spec(slug: str = "h100-256-onprem-starter") -> dict:
    return json.loads((EXAMPLES / f"{slug}.json").read_text())


def team_gpu_entry(entry_id: str = "acme-h100-negotiated") -> dict:
    """A team's own GPU entry: an H100 SXM at a negotiated price, with its source."""
    return {
        "id": entry_id,
        "name": "H100 SXM (negotiated)",
        "vendor": "NVIDIA",
        "form_factor": "sxm",
        "bf16_dense_tflops": 989,
        "fp8_dense_tflops": 1979,
        "hbm_gb": 80,
        "hbm_bandwidth_tb_per_s": 3.35,
        "scale_up_domain_gpus": 8,
        "nvlink_bandwidth_gb_per_s_per_gpu": 900,
        "tdp_w": 700,
        "price_usd": 21000,
        "price_date": "2026-09",
        "sources": [{"title": "Vendor quote Q3 2026", "ref": "quote ACME-4711", "date": "2026-09"}],
    }


@pytest.fixture
def make_member(django_user_model):
    from studio.accounts.models import Membership, Team

    def make(username: str, team_name: str, role: str = "owner"):
        user = django_user_model.objects.create_user(username=username, password="pw-" + username)
        team, _ = Team.objects.get_or_create(name=team_name, slug=team_name.lower())
        Membership.objects.create(team=team, user=user, role=role)
        return user, team

    return make


@pytest.fixture
def team_a(make_member):
    return make_member("alice", "Alpha")


@pytest.fixture
def team_b(make_member):
    return make_member("bob", "Bravo")


@pytest.fixture
def design_in(db):
    from studio.designs import services

    def make(user, team, name: str = "Design 1", slug: str = "h100-256-onprem-starter"):
        project = services.project_create(actor=user, team=team, name=f"{team.name} project")
        return services.design_create(
            actor=user, project=project, name=name, spec=example_spec(slug), message="test"
        )

    return make


@pytest.fixture
def celery_worker_process(settings):
    """A real `celery worker` process on the Redis broker, using the test database."""
    from django.db import connection

    from studio.celery import app as celery_app

    if not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("needs REDIS_URL (bin/test sets it)")
    db = connection.settings_dict
    if db["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("needs PostgreSQL (bin/test sets DATABASE_URL)")
    database_url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "studio.settings.test",
        "CELERY_TASK_ALWAYS_EAGER": "False",
    }
    queue = f"test-{os.getpid()}"
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "studio",
            "worker",
            "--pool",
            "solo",
            "--queues",
            queue,
            "--loglevel",
            "WARNING",
            "--without-heartbeat",
            "--without-gossip",
        ],
        cwd=ROOT,
        env=env,
    )
    celery_app.conf.task_always_eager = False
    celery_app.conf.task_default_queue = queue
    try:
        yield worker
    finally:
        celery_app.conf.task_always_eager = settings.CELERY_TASK_ALWAYS_EAGER
        celery_app.conf.task_default_queue = "celery"
        worker.terminate()
        worker.wait(timeout=20)
