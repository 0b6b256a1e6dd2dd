"""The results sections of a run page, built in Python from the typed engine results.

Each engine's module (`fabric`, `facility`, `storage`, `performance`, `reliability`, `regions`,
`cost`, `security`) has `blocks(results, run=None) -> list[Block]`: cards, tables, paragraphs
and lists with every value already formatted (`sections.format`) and every "show this or that"
decision taken. The templates under `runs/blocks/` print them; a section template only loops
over its blocks. `run` (optional) gives the studio's own links: CSV downloads, the accept-risk
form."""

from studio.runs.sections import (
    cost,
    fabric,
    facility,
    network,
    performance,
    physical,
    regions,
    reliability,
    security,
    storage,
)
from studio.runs.selectors import TypedResults

BUILDERS = {
    "performance": performance.blocks,
    "fabric": fabric.blocks,
    "network": network.blocks,
    "facility": facility.blocks,
    "physical": physical.blocks,
    "storage": storage.blocks,
    "reliability": reliability.blocks,
    "regions": regions.blocks,
    "cost": cost.blocks,
    "security": security.blocks,
}


def section_blocks(results: TypedResults | None, run=None) -> dict[str, list]:
    """Every section's blocks by engine name (empty without results)."""
    if results is None:
        return {}
    return {key: build(results, run) for key, build in BUILDERS.items()}
