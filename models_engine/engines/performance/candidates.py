"""A set of parallel layouts as numpy arrays (one element per candidate), so the step-time and
memory models evaluate thousands of layouts in one pass."""

from dataclasses import dataclass, fields

import numpy as np

from models_engine.engines.performance.layout import Layout
from models_engine.engines.performance.pipeline_schedule import SCHEDULES, schedule_code

RECOMPUTE = ("none", "selective", "full")


@dataclass(frozen=True)
class Candidates:
    tp: np.ndarray
    pp: np.ndarray
    dp: np.ndarray
    cp: np.ndarray
    ep: np.ndarray
    vp: np.ndarray  # virtual pipeline stages (interleave)
    mbs: np.ndarray  # micro-batch size, sequences
    recompute: np.ndarray  # index into RECOMPUTE
    zero: np.ndarray  # 0-3 (3 = ZeRO-3 / FSDP)
    sp: np.ndarray  # sequence parallelism (bool)
    first_layers: np.ndarray  # layers on the first pipeline stage
    last_layers: np.ndarray  # layers on the last pipeline stage (== first when pp == 1)
    total_layers: np.ndarray  # the model's layers (same for every candidate)
    schedule: np.ndarray  # index into pipeline_schedule.SCHEDULES
    shard: np.ndarray  # ranks the ZeRO / FSDP states are sharded over (dp x cp = all)
    # share of a stage's layers full recomputation covers (1 = all; the search keeps 1)
    recompute_share: np.ndarray | None = None
    # GPUs each routed expert is split over (expert tensor parallelism; the search keeps tp)
    etp: np.ndarray | None = None
    # layers per GPU whose activations are offloaded to host memory (the search keeps 0)
    offload: np.ndarray | None = None
    # micro-batches per run of the pipeline schedule; 0 = the step's in one run (the search
    # keeps 0)
    run_microbatches: np.ndarray | None = None

    def __post_init__(self):
        if self.recompute_share is None:
            object.__setattr__(self, "recompute_share", np.ones_like(self.tp, dtype=float))
        if self.offload is None:
            object.__setattr__(self, "offload", np.zeros_like(self.tp, dtype=float))
        if self.run_microbatches is None:
            object.__setattr__(self, "run_microbatches", np.zeros_like(self.tp, dtype=float))
        if self.etp is None:
            object.__setattr__(self, "etp", self.tp)

    @property
    def expert_replicas(self) -> np.ndarray:
        """Ranks holding the same routed-expert shard (expert data parallelism): the expert
        grid EP x ETP x EDP covers the same tp x dp x cp GPUs as the dense layers."""
        return self.tp * self.dp * self.cp / (self.ep * self.etp)

    @property
    def size(self) -> int:
        return int(self.tp.shape[0])

    def take(self, index) -> "Candidates":
        return Candidates(**{f.name: getattr(self, f.name)[index] for f in fields(self)})

    @property
    def middle_layers(self) -> np.ndarray:
        """Layers on each middle stage (0 when pp <= 2)."""
        rest = self.total_layers - self.first_layers - self.last_layers
        return np.where(self.pp > 2, rest / np.maximum(self.pp - 2, 1), 0.0)

    def pipeline_runs(self, microbatches) -> np.ndarray:
        """Runs of the pipeline schedule per step, each filling and draining the pipeline:
        one, or the step's micro-batches / run_microbatches (torch.distributed.pipelining
        trainers run the schedule once per gradient-accumulation step)."""
        per_run = self.run_microbatches
        return np.where((per_run > 0) & (self.pp > 1), microbatches / np.maximum(per_run, 1.0), 1.0)

    def microbatches_per_run(self, microbatches) -> np.ndarray:
        """Micro-batches one run of the schedule takes (all of the step's by default)."""
        return microbatches / self.pipeline_runs(microbatches)

    @property
    def largest_stage_layers(self) -> np.ndarray:
        """Layers on the stage that holds the most."""
        return np.maximum(np.maximum(self.first_layers, self.last_layers), self.middle_layers)

    def layout(self, index: int, chosen_by: str) -> Layout:
        pp = int(self.pp[index])
        layers = float(self.total_layers[index])
        first, last = float(self.first_layers[index]), float(self.last_layers[index])
        even = pp == 1 or (first == last == layers / pp)
        shard = int(self.shard[index])
        replicas = int(self.dp[index] * self.cp[index])
        return Layout(
            tp=int(self.tp[index]),
            pp=pp,
            dp=int(self.dp[index]),
            cp=int(self.cp[index]),
            ep=int(self.ep[index]),
            expert_tp=None if self.etp[index] == self.tp[index] else int(self.etp[index]),
            virtual_stages=int(self.vp[index]),
            micro_batch_size=int(self.mbs[index]),
            zero_stage=int(self.zero[index]),
            sequence_parallel=bool(self.sp[index]),
            recompute=RECOMPUTE[int(self.recompute[index])],
            recompute_layer_share=float(self.recompute_share[index]),
            first_stage_layers=None if even else int(first),
            last_stage_layers=None if even else int(last),
            pipeline_schedule=SCHEDULES[int(self.schedule[index])],
            shard_group_size=None if shard == replicas else shard,
            activation_offload_layers=int(self.offload[index]),
            pipeline_microbatches=int(self.run_microbatches[index]) or None,
            chosen_by=chosen_by,
        )


def _array(values, dtype=float) -> np.ndarray:
    return np.asarray(values, dtype=dtype)


def from_layouts(layouts: list[Layout], layers: int) -> Candidates:
    """Explicit layouts (the spec's, or one for a single evaluation)."""
    first, last = [], []
    for layout in layouts:
        f, la = stage_layers(layout, layers)
        first.append(f)
        last.append(la)
    zero = [3 if layout.zero_stage == "fsdp" else int(layout.zero_stage) for layout in layouts]
    return Candidates(
        tp=_array([c.tp for c in layouts]),
        pp=_array([c.pp for c in layouts]),
        dp=_array([c.dp for c in layouts]),
        cp=_array([c.cp for c in layouts]),
        ep=_array([c.ep for c in layouts]),
        vp=_array([c.virtual_stages for c in layouts]),
        mbs=_array([c.micro_batch_size for c in layouts]),
        recompute=_array([RECOMPUTE.index(c.recompute) for c in layouts], int),
        zero=_array(zero, int),
        sp=_array([c.sequence_parallel and c.tp > 1 for c in layouts], bool),
        first_layers=_array(first),
        last_layers=_array(last),
        total_layers=np.full(len(layouts), float(layers)),
        schedule=_array([schedule_code(c.pipeline_schedule) for c in layouts], int),
        shard=_array([c.shard_group_size or c.dp * c.cp for c in layouts]),
        recompute_share=_array([c.recompute_layer_share for c in layouts]),
        etp=_array([c.expert_tp_size for c in layouts]),
        offload=_array([c.activation_offload_layers for c in layouts]),
        run_microbatches=_array([c.pipeline_microbatches or 0 for c in layouts]),
    )


def stage_layers(layout: Layout, layers: int) -> tuple[float, float]:
    """(first, last) stage layers: explicit uneven split, else layers / pp each."""
    if layout.pp <= 1:
        return float(layers), float(layers)
    first, last = layout.first_stage_layers, layout.last_stage_layers
    if first is None and last is None:
        return layers / layout.pp, layers / layout.pp
    if first is None or last is None:
        given = first if first is not None else last
        rest = (layers - given) / (layout.pp - 1)
        return (float(first), rest) if first is not None else (rest, float(last))
    return float(first), float(last)
