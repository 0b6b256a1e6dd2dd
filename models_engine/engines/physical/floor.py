"""Where each rack stands: halls, rows and positions, and where each device sits.

Compute racks go in node order; each rack of compute leaves is placed in the middle of the
compute racks its leaves serve (end-of-row networking brought to the middle of its span, so
node links stay short); the other network racks (spines, cores, frontend, storage, fabric
managers) and the storage systems' racks stand together at the centre of the floor.
Liquid-cooled rows end with the facility engine's in-row CDUs. Rows fill halls of
`physical.rows_per_hall`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .result import FloorRun, RackTemplate


@dataclass(frozen=True)
class Position:
    hall: int
    row: int
    slot: int


@dataclass(frozen=True)
class RackPlace:
    name: str
    template: str
    kind: str


def rack_names(template: RackTemplate) -> list[str]:
    prefix, first = template.first_rack[0], int(template.first_rack[1:])
    return [f"{prefix}{first + i:04d}" for i in range(template.racks)]


def rack_order(
    templates: list[RackTemplate], leaf_rack_spans: dict[str, tuple[int, int]]
) -> list[RackPlace]:
    """Racks in floor order. `leaf_rack_spans`: leaf rack name -> (first, last) index of the
    compute racks its leaves serve; each leaf rack stands before the middle rack of its span,
    every other network rack at the centre of the compute racks."""
    compute = [
        RackPlace(n, t.template, "compute")
        for t in templates
        if t.kind == "compute"
        for n in rack_names(t)
    ]
    network = [  # network and storage racks
        RackPlace(n, t.template, t.kind)
        for t in templates
        if t.kind != "compute"
        for n in rack_names(t)
    ]
    anchored = [(i, 1, rack) for i, rack in enumerate(compute)]
    centre = len(compute) // 2
    for rack in network:
        span = leaf_rack_spans.get(rack.name)
        anchor = (span[0] + span[1] + 1) // 2 if span else centre
        anchored.append((anchor, 0, rack))
    anchored.sort(key=lambda item: (item[0], item[1]))
    return [rack for _, _, rack in anchored]


def lay_out(
    order: list[RackPlace],
    racks_per_row: int,
    rows_per_hall: int,
    cdus: int,
    liquid_templates: set[str],
) -> tuple[list[FloorRun], dict[str, Position]]:
    """Rows of `racks_per_row` positions; the last position of a row with liquid-cooled racks
    takes a CDU while CDUs remain. Returns the floor runs and each rack's position."""
    positions: dict[str, Position] = {}
    cells: list[tuple[int, int, RackPlace | None]] = []  # (row, slot, rack or CDU)
    row, slot, row_liquid = 1, 1, False
    for rack in order:
        if slot == racks_per_row and cdus and (row_liquid or rack.template in liquid_templates):
            cells.append((row, slot, None))
            cdus -= 1
            row, slot, row_liquid = row + 1, 1, False
        cells.append((row, slot, rack))
        row_liquid = row_liquid or rack.template in liquid_templates
        positions[rack.name] = Position((row - 1) // rows_per_hall + 1, row, slot)
        slot += 1
        if slot > racks_per_row:
            row, slot, row_liquid = row + 1, 1, False
    if cdus and cells:  # the rest stand at the end of the last row
        for _ in range(cdus):
            cells.append((row, slot, None))
            slot += 1
    return _runs(cells, rows_per_hall), positions


def _runs(cells, rows_per_hall: int) -> list[FloorRun]:
    runs: list[FloorRun] = []
    for row, slot, rack in cells:
        template = rack.template if rack else None
        last = runs[-1] if runs else None
        if (
            last is not None
            and last.row == row
            and last.template == template
            and last.first_slot + last.count == slot
        ):
            runs[-1] = last.model_copy(update={"count": last.count + 1})
            continue
        runs.append(
            FloorRun(
                hall=(row - 1) // rows_per_hall + 1,
                row=row,
                first_slot=slot,
                count=1,
                template=template,
                kind=rack.kind if rack else "cdu",
                first_rack=rack.name if rack else None,
            )
        )
    return runs


def positions_from_floor(floor: list[FloorRun]) -> dict[str, Position]:
    """Each rack's position, read back from the stored floor runs."""
    out = {}
    for run in floor:
        if run.first_rack is None:
            continue
        prefix, first = run.first_rack[0], int(run.first_rack[1:])
        for i in range(run.count):
            out[f"{prefix}{first + i:04d}"] = Position(run.hall, run.row, run.first_slot + i)
    return out
