"""The example designs shipped in examples/: the starting points offered to every user."""

import json
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings


@dataclass(frozen=True)
class Example:
    slug: str
    name: str
    description: str
    spec: dict


def list_examples() -> list[Example]:
    examples = []
    for path in sorted(Path(settings.EXAMPLES_DIR).glob("*.json")):
        spec = json.loads(path.read_text())
        examples.append(
            Example(
                slug=path.stem,
                name=spec.get("name") or path.stem,
                description=spec.get("description", ""),
                spec=spec,
            )
        )
    return examples


def get_example(slug: str) -> Example | None:
    return next((e for e in list_examples() if e.slug == slug), None)
