"""Create the demo user, team and project with two evaluated example designs. Idempotent.

It lives in reports, high in the layers, because it drives accounts, designs and runs."""

import os

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from studio.accounts.models import Membership, Role, Team
from studio.designs import services as design_services
from studio.designs.examples import get_example, list_examples
from studio.designs.models import Design, Project
from studio.runs import services as run_services
from studio.runs.selectors import latest_done_run

# The first two are the demo's headline pair; the rest of examples/ follows under its own names.
DEMO_EXAMPLES = [
    ("h100-256-onprem-starter", "256x H100 starter"),
    ("dgx-h100-superpod-4su", "DGX H100 SuperPOD, 4 SU"),
]


def demo_examples() -> list[tuple[str, str]]:
    named = dict(DEMO_EXAMPLES)
    rest = [(e.slug, e.name) for e in list_examples() if e.slug not in named]
    return DEMO_EXAMPLES + rest


class Command(BaseCommand):
    help = "Create (or refresh) the demo user, team, project and two evaluated designs."

    def add_arguments(self, parser):
        parser.add_argument("--username", default=os.environ.get("STUDIO_DEMO_USER", "demo"))
        parser.add_argument(
            "--password", default=os.environ.get("STUDIO_DEMO_PASSWORD", "demo-studio-2026")
        )

    def handle(self, *args, username, password, **options):
        with transaction.atomic():
            user = self._demo_user(username, password)
            team, _ = Team.objects.get_or_create(slug="demo", defaults={"name": "Demo team"})
            Membership.objects.update_or_create(team=team, user=user, defaults={"role": Role.OWNER})
            project = Project.objects.filter(team=team, name="Demo project").first()
            if project is None:
                project = design_services.project_create(
                    actor=user,
                    team=team,
                    name="Demo project",
                    description="The example designs, evaluated by the engines.",
                )
            designs = [
                self._demo_design(user, project, slug, name) for slug, name in demo_examples()
            ]
        for design in designs:
            self._evaluate_now(user, design)
        self.stdout.write(
            self.style.SUCCESS(f"demo ready: user {username!r}, project {project.pk}")
        )

    def _demo_user(self, username: str, password: str):
        user, created = get_user_model().objects.get_or_create(username=username)
        if created or not user.has_usable_password():
            user.set_password(password)
            user.save()
        return user

    def _demo_design(self, user, project, slug: str, name: str) -> Design:
        existing = project.designs.filter(name=name).first()
        if existing:
            return existing
        example = get_example(slug)
        if example is None:
            raise SystemExit(f"example {slug!r} is missing from examples/")
        return design_services.design_create(
            actor=user,
            project=project,
            name=name,
            spec=example.spec,
            message=f"Created from example {slug}",
        )

    def _evaluate_now(self, user, design: Design) -> None:
        """Evaluate in this process so the demo is ready before any worker starts."""
        revision = design.latest_revision
        if latest_done_run(revision.runs) is not None:
            return
        run = run_services.run_enqueue(actor=user, revision=revision, dispatch=False)
        run = run_services.run_execute(run_id=run.pk)
        self.stdout.write(f"evaluated {design.name}: {run.status}")
