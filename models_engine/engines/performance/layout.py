"""The parallel layout an evaluation uses: the spec's explicit one, or, for `auto`, the least
model-parallel layout that fits in HBM (the full speed-ranked search belongs to the step-time
model; this picks by memory alone and says so)."""

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Layout:
    tp: int
    pp: int
    dp: int
    cp: int = 1
    ep: int = 1
    expert_tp: int | None = None  # GPUs each routed expert is split over; None = tp
    virtual_stages: int = 1
    micro_batch_size: int = 1
    zero_stage: int = 1
    sequence_parallel: bool = True
    recompute: str = "selective"
    recompute_layer_share: float = 1.0  # layers full recomputation covers (block method)
    first_stage_layers: int | None = None  # uneven pipeline split; None = even
    last_stage_layers: int | None = None
    pipeline_schedule: str = "1f1b"  # pipeline_schedule.SCHEDULES
    shard_group_size: int | None = None  # ZeRO / FSDP shard group; None = all dp x cp ranks
    activation_offload_layers: int = 0  # layers per GPU whose activations go to host memory
    # micro-batches per run of the pipeline schedule; None = the step's in one run
    pipeline_microbatches: int | None = None
    chosen_by: str = "spec"

    @property
    def expert_tp_size(self) -> int:
        return self.tp if self.expert_tp is None else self.expert_tp

    @property
    def expert_dp(self) -> int:
        """Replicas of each routed-expert shard: tp x dp x cp / (ep x expert_tp)."""
        return max(1, (self.tp * self.dp * self.cp) // (self.ep * self.expert_tp_size))

    def as_dict(self) -> dict:
        return asdict(self)


def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def candidate_layouts(
    *, gpu_count: int, domain_gpus: int, layers: int, heads: int, kv_heads: int
) -> list[Layout]:
    """TP inside the NVLink domain and dividing the KV heads; PP dividing the layers."""
    candidates = []
    for tp in divisors(min(domain_gpus, gpu_count)):
        if heads % tp or (kv_heads % tp and tp % kv_heads):
            continue
        for pp in divisors(layers):
            if gpu_count % (tp * pp):
                continue
            candidates.append(
                Layout(tp=tp, pp=pp, dp=gpu_count // (tp * pp), chosen_by="auto: memory fit")
            )
    # Least model parallelism first: it costs the least communication and bubble.
    return sorted(candidates, key=lambda c: (c.tp * c.pp, c.pp))
