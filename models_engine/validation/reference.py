"""One published reference as the validation panel shows it: the source, what was measured, the
published value, the engine's value, the error and the role (fit / check).

The performance registry (`data/*.json`, scored by `runner.py`) and the other engines' published
references (`published/*.json`, scored by `published.py`) both become `Reference` rows, so the
panel, the API and the evidence grade read one table."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Reference:
    id: str
    engine: str  # the engine whose number is compared: performance, collectives, fabric, ...
    family: str  # one source / one table of runs
    quantity: str  # "step time", "memory per GPU", "all-reduce time", ...
    unit: str  # unit of `published` and `model`
    measured: str  # what was measured, in words (model, GPUs, layout, row of the table)
    source_title: str
    source_url: str
    where: str  # table / figure / row in the source
    role: str  # "fit": used to fix an engine constant; "check": out-of-sample only
    published: float
    model: float | None = None
    error: float | None = None  # model / published - 1
    gpu_sku: str | None = None
    gpu_architecture: str | None = None
    gpus: int | None = None
    stack: str | None = None  # the engine's software-stack id of the run
    # The trained model's class where the quantity depends on it (step times): "dense" or
    # "moe" (mixture of experts). Evidence for a design comes from its own class.
    model_class: str | None = None
    headline_keys: tuple[str, ...] = ()  # headline numbers this reference is evidence for
    # Whether the GPU generation and the cluster's scale matter for nearness (a step time does;
    # an analytical memory count per GPU does not).
    cluster_specific: bool = True
    not_expressible: str | None = None
    note: str = ""

    @property
    def scored(self) -> bool:
        return self.error is not None

    def as_dict(self) -> dict:
        return {**asdict(self), "headline_keys": list(self.headline_keys)}


def relative_error(model: float, published: float) -> float:
    """model / published - 1; an exact count that the model matches is 0."""
    return model / published - 1
