"""Variant index <-> axis values (mixed radix), and a variant's spec document.

GPU count: data parallelism is what changes with scale (the scaling sweep's rule,
`engines/sweep/scaling.py`), so a design with explicit parallelism gets dp scaled with the GPU
count; a count that leaves dp fractional is an invalid variant naming the reason.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import numpy as np

from .definition import VECTOR_PATHS, SweepDefinition

GPU_COUNT_PATH = "compute.gpu_count"


class VariantError(ValueError):
    """A variant that cannot be written as a spec (a path that does not exist, a fractional
    dp); its message names the path."""


@dataclass(frozen=True)
class VariantGrid:
    paths: tuple[str, ...]
    values: tuple[tuple, ...]

    @classmethod
    def of(cls, definition: SweepDefinition) -> VariantGrid:
        axes = definition.ordered_axes()
        return cls(
            paths=tuple(a.path for a in axes), values=tuple(tuple(a.resolved()) for a in axes)
        )

    @property
    def radix(self) -> tuple[int, ...]:
        return tuple(len(v) for v in self.values)

    @property
    def vector_block(self) -> int:
        """Variants per structural group: the product of the vectorised (fastest) axes."""
        return math.prod(
            size for path, size in zip(self.paths, self.radix, strict=True) if path in VECTOR_PATHS
        )

    @property
    def total(self) -> int:
        return math.prod(self.radix)

    def digits(self, indices: np.ndarray) -> np.ndarray:
        """(n, axes) array of each variant's value position on each axis."""
        indices = np.asarray(indices, dtype=np.int64)
        out = np.empty((indices.size, len(self.radix)), dtype=np.int64)
        rest = indices.copy()
        for column in range(len(self.radix) - 1, -1, -1):
            rest, out[:, column] = np.divmod(rest, self.radix[column])
        return out

    def index_of(self, digits) -> int:
        index = 0
        for digit, size in zip(digits, self.radix, strict=True):
            index = index * size + int(digit)
        return index

    def assignment(self, index: int) -> dict:
        """{path: value} of one variant."""
        if not 0 <= index < self.total:
            raise IndexError(f"variant {index} is outside 0..{self.total - 1}")
        digits = self.digits(np.array([index]))[0]
        return {
            path: self.values[a][d]
            for a, (path, d) in enumerate(zip(self.paths, digits, strict=True))
        }


def set_path(doc: dict, path: str, value) -> None:
    """Write `value` at a dotted path (list items by index); missing dict keys are created
    (spec validation then rejects a key the schema does not know)."""
    keys = path.split(".")
    node = doc
    for key in keys[:-1]:
        if isinstance(node, list):
            if not key.isdigit() or int(key) >= len(node):
                raise VariantError(f"{path}: no item {key}")
            node = node[int(key)]
        elif isinstance(node, dict):
            node = node.setdefault(key, {})
        else:
            raise VariantError(f"{path}: {key} is not a section")
    last = keys[-1]
    if isinstance(node, list):
        if not last.isdigit() or int(last) >= len(node):
            raise VariantError(f"{path}: no item {last}")
        node[int(last)] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise VariantError(f"{path}: not a section")


def variant_doc(base_doc: dict, assignment: dict) -> dict:
    """The base design with the variant's values written in (dp following the GPU count)."""
    doc = copy.deepcopy(base_doc)
    for path, value in assignment.items():
        set_path(doc, path, value)
    if GPU_COUNT_PATH in assignment:
        _scale_dp(doc, base_doc)
    return doc


def _scale_dp(doc: dict, base_doc: dict) -> None:
    parallelism = (base_doc.get("workload") or {}).get("parallelism")
    if not isinstance(parallelism, dict) or "dp" not in parallelism:
        return  # "auto": the performance engine searches the layout at every count
    base_count, count = base_doc["compute"]["gpu_count"], doc["compute"]["gpu_count"]
    if not all(
        isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in (base_count, count)
    ):
        return  # not a GPU count: the spec's validation names the field
    dp = parallelism["dp"] * doc["compute"]["gpu_count"] / base_count
    if not float(dp).is_integer():
        raise VariantError(
            f"{GPU_COUNT_PATH}: {doc['compute']['gpu_count']} GPUs make dp "
            f"{parallelism['dp']} x {doc['compute']['gpu_count']}/{base_count} = {dp:g}, "
            "not a whole number"
        )
    doc["workload"]["parallelism"]["dp"] = int(dp)


__all__ = ["GPU_COUNT_PATH", "VariantError", "VariantGrid", "set_path", "variant_doc"]
