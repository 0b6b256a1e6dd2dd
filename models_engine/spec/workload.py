"""`workload` section: model architecture, training run, parallelism, inference targets."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from ._base import RuleViolations, SpecModel, divisors, literal_or, section_field, spec_field
from .fine_tuning import FineTuning
from .parallel_rules import check_parallel_layout
from .software_stack import SoftwareStackChoice


class MixtureOfExperts(SpecModel):
    """Mixture-of-experts feed-forward layers (absent for a dense model)."""

    experts: int = spec_field(
        ..., unit="count", description="Routed experts per MoE layer.", ge=2, le=4096
    )
    top_k: int = spec_field(
        2, unit="count", description="Routed experts activated per token.", ge=1, le=64
    )
    expert_ffn_hidden_size: int = spec_field(
        ...,
        unit="count (hidden units)",
        description="FFN hidden size of one expert.",
        ge=1,
        le=1_000_000,
    )
    shared_experts: int = spec_field(
        0,
        unit="count",
        description="Always-active shared experts per MoE layer (DeepSeek style).",
        ge=0,
        le=64,
    )
    moe_layer_frequency: int = spec_field(
        1,
        unit="layers",
        description="Every n-th transformer layer is an MoE layer (1 = all of them).",
        ge=1,
        le=64,
    )
    first_dense_layers: int = spec_field(
        0,
        unit="layers",
        description="Leading layers that stay dense (DeepSeek-V3 uses 3).",
        ge=0,
        le=1000,
    )
    mtp_modules: int = spec_field(
        0,
        unit="count",
        description=(
            "Multi-token prediction modules (DeepSeek-V3: 1). Each adds a 2h x h projection, "
            "one MoE transformer block and one more pass through the shared output head and "
            "loss, on the last pipeline stage."
        ),
        ge=0,
        le=8,
    )
    max_nodes_per_token: int | None = spec_field(
        None,
        unit="count (nodes)",
        description=(
            "Node-limited routing: a token's experts lie on at most this many expert-parallel "
            "nodes (DeepSeek-V3: 4, its topk_group 4 of n_group 8 with one group per node); "
            "sets what a deduplicating dispatcher (software_stack.ep_dispatcher deepep) sends "
            "between nodes. null = no limit."
        ),
        ge=1,
        le=4096,
    )
    routing: Literal["learned", "force_balanced", "round_robin"] = spec_field(
        "learned",
        unit="enum",
        description=(
            "How tokens reach the experts: 'learned' (the router's choice, so the busiest "
            "expert-parallel rank sets the pace), 'force_balanced' (every expert gets the "
            "same token count from random top-k choices, as in Megatron-Core's "
            "moe_router_force_load_balancing, which NVIDIA's published MoE benchmarks use) or "
            "'round_robin' (every expert gets the same count and a token's top_k experts are "
            "consecutive: token i takes experts i x top_k ... i x top_k + top_k - 1 modulo "
            "the expert count, NeMo AutoModel's FakeBalancedGate in its published "
            "benchmarks; its experts then sit on one or two GPUs, which a deduplicating "
            "dispatcher sends to once each)."
        ),
    )


class MultiLatentAttention(SpecModel):
    """Multi-head latent attention (DeepSeek-V2 / V3, arXiv 2405.04434 section 2.1): queries and
    keys/values pass through low-rank latents; each head's query/key is a no-RoPE part of
    `head_dim` plus a RoPE part shared by the heads' keys. Absent: ordinary multi-head /
    grouped-query attention."""

    q_lora_rank: int | None = spec_field(
        None,
        unit="count (latent width)",
        description=(
            "Query latent width (DeepSeek-V3: 1536); null = queries projected straight from "
            "the hidden state (DeepSeek-V2-Lite)."
        ),
        ge=1,
        le=1_000_000,
    )
    kv_lora_rank: int = spec_field(
        ...,
        unit="count (latent width)",
        description="Key/value latent width, what inference caches per token (DeepSeek-V3: 512).",
        ge=1,
        le=1_000_000,
    )
    qk_rope_head_dim: int = spec_field(
        64,
        unit="count",
        description="RoPE part of each query/key head, one key part shared by all heads.",
        ge=0,
        le=65_536,
    )
    v_head_dim: int | None = spec_field(
        None,
        unit="count",
        description="Value head dimension; null = head_dim (DeepSeek-V3: 128).",
        ge=1,
        le=65_536,
    )


ZeroStage = literal_or("fsdp", Annotated[int, Field(ge=0, le=3)], "a ZeRO stage (0-3)")


class Parallelism(SpecModel):
    """Explicit Megatron-style parallel layout. tp x pp x dp x cp must equal compute.gpu_count;
    expert parallelism (ep) is carved out of dp."""

    tp: int = spec_field(1, unit="GPUs", description="Tensor-parallel size.", ge=1, le=1024)
    pp: int = spec_field(1, unit="stages", description="Pipeline-parallel size.", ge=1, le=1024)
    dp: int = spec_field(
        1, unit="replicas", description="Data-parallel size (replicas).", ge=1, le=1_000_000
    )
    cp: int = spec_field(
        1, unit="GPUs", description="Context-parallel size (sequence split).", ge=1, le=1024
    )
    ep: int = spec_field(
        1,
        unit="GPUs",
        description=(
            "Expert-parallel size (MoE models only): must divide dp, or with expert_tp below "
            "tp, ep x expert_tp must divide tp x dp x cp."
        ),
        ge=1,
        le=4096,
    )
    expert_tp: int | None = spec_field(
        None,
        unit="GPUs",
        description=(
            "Expert tensor-parallel size (Megatron --expert-tensor-parallel-size): GPUs each "
            "routed expert is split over; null = tp. Below tp the expert-parallel group spans "
            "the tensor-parallel ranks (DeepSeek-V3 recipes: tp 2, expert_tp 1, ep 64 over "
            "tp x dp): ep x expert_tp must divide tp x dp x cp."
        ),
        ge=1,
        le=1024,
    )
    virtual_stages: int = spec_field(
        1,
        unit="chunks per stage",
        description="Interleaved pipeline: model chunks per pipeline rank (1 = no interleave).",
        ge=1,
        le=64,
    )
    first_stage_layers: int | None = spec_field(
        None,
        unit="layers",
        description=(
            "Layers on the first pipeline stage when uneven (Megatron "
            "--decoder-first-pipeline-num-layers); null = even split."
        ),
        ge=0,
        le=10_000,
    )
    last_stage_layers: int | None = spec_field(
        None,
        unit="layers",
        description=(
            "Layers on the last pipeline stage when uneven (Megatron "
            "--decoder-last-pipeline-num-layers); null = even split."
        ),
        ge=0,
        le=10_000,
    )
    micro_batch_size: int = spec_field(
        1, unit="sequences", description="Sequences per micro-batch.", ge=1, le=4096
    )
    zero_stage: ZeroStage = spec_field(  # type: ignore[valid-type]
        1,
        unit="enum",
        description=(
            "Optimizer/gradient/weight sharding over dp: ZeRO stage 0-3 (1 = Megatron "
            "distributed optimizer) or 'fsdp' (PyTorch FSDP full sharding, ZeRO-3-like)."
        ),
    )
    sequence_parallel: bool = spec_field(
        False,
        unit="boolean",
        description="Megatron sequence parallelism (shards LayerNorm/dropout activations by tp).",
    )
    recompute: Literal["none", "selective", "full"] = spec_field(
        "selective", unit="enum", description="Activation recomputation policy."
    )
    recompute_layer_share: float = spec_field(
        1.0,
        unit="fraction",
        description=(
            "Share of each pipeline stage's transformer layers that full recomputation "
            "checkpoints; the others keep all their activations (Megatron-LM "
            "--recompute-method block --recompute-num-layers, torchtitan's layer-level "
            "selective checkpointing: every 2nd layer = 0.5). Only with recompute 'full'."
        ),
        gt=0.0,
        le=1.0,
    )
    activation_offload_layers: int = spec_field(
        0,
        unit="layers",
        description=(
            "Transformer layers per GPU whose activations are copied to host memory during "
            "the forward pass and fetched back for the backward (Megatron-Core "
            "cpu_offloading_num_layers, which NVIDIA's GB200 / GB300 FSDP recipes use); the "
            "copies run beside the compute over the GPU's host link. 0 = none."
        ),
        ge=0,
        le=1000,
    )
    pipeline_schedule: Literal["1f1b", "zb-h1", "zb-v", "dualpipe"] = spec_field(
        "1f1b",
        unit="enum",
        description=(
            "Pipeline schedule: '1f1b' (Narayanan et al. 2021; interleaved when "
            "virtual_stages > 1), 'zb-h1' / 'zb-v' (zero bubble, Qi et al. 2023: zb-v holds "
            "two chunks per rank, virtual_stages = 2), 'dualpipe' (DeepSeek-V3: two stages "
            "per rank, pp even)."
        ),
    )
    pipeline_microbatches: int | None = spec_field(
        None,
        unit="micro-batches",
        description=(
            "Micro-batches per run of the pipeline schedule, from fill to drain; null = all "
            "of a step's micro-batches in one run (Megatron-Core, DeepSpeed). Trainers on "
            "PyTorch's torch.distributed.pipelining (torchtitan, NeMo AutoModel) run the "
            "schedule once per gradient-accumulation step over its local batch (local batch / "
            "micro_batch_size micro-batches), so each run fills and drains the pipeline again. "
            "Needs pp >= 2 and must divide the step's micro-batches per pipeline."
        ),
        ge=1,
        le=1_000_000,
    )
    shard_group_size: int | None = spec_field(
        None,
        unit="GPUs",
        description=(
            "Ranks the ZeRO / FSDP states are sharded over; smaller than dp x cp = hybrid "
            "sharding (HSDP: shard inside the group, all-reduce across groups); null = all "
            "dp x cp ranks."
        ),
        ge=1,
        le=1_000_000,
    )

    @model_validator(mode="after")
    def _check_layout(self) -> Parallelism:
        issues = RuleViolations()
        if self.virtual_stages > 1 and self.pp == 1:
            issues.add(
                "virtual_stages",
                "an interleaved schedule (virtual_stages > 1) needs pp > 1",
                {"eq": 1},
            )
        uneven = [s for s in (self.first_stage_layers, self.last_stage_layers) if s is not None]
        if uneven and self.pp < 2:
            issues.add(
                "pp",
                "first_stage_layers / last_stage_layers need pp >= 2",
                {"ge": 2},
            )
        if self.recompute_layer_share < 1.0 and self.recompute != "full":
            issues.add(
                "recompute_layer_share",
                "a share of recomputed layers applies to recompute 'full' only",
                {"eq": 1.0},
            )
        if self.pipeline_microbatches is not None and self.pp < 2:
            issues.add(
                "pipeline_microbatches",
                "micro-batches per pipeline run apply to a pipeline (pp >= 2); leave it null",
                {"eq": None},
            )
        self._check_schedule(issues)
        self._check_shard_group(issues)
        issues.raise_if_any()
        return self

    def _check_schedule(self, issues: RuleViolations) -> None:
        chunks = {"zb-h1": 1, "zb-v": 2, "dualpipe": 1}.get(self.pipeline_schedule)
        if chunks is None:
            return
        if self.pp < 2:
            issues.add("pipeline_schedule", f"'{self.pipeline_schedule}' needs pp >= 2")
        if self.virtual_stages != chunks:
            issues.add(
                "virtual_stages",
                f"pipeline_schedule '{self.pipeline_schedule}' runs {chunks} chunk(s) per "
                f"pipeline rank: virtual_stages must be {chunks}",
                {"eq": chunks},
            )
        if self.pipeline_schedule == "dualpipe" and self.pp % 2:
            issues.add("pp", "dualpipe pairs stage i with stage pp-1-i: pp must be even")

    def _check_shard_group(self, issues: RuleViolations) -> None:
        group = self.shard_group_size
        if group is None:
            return
        ranks = self.dp * self.cp
        if ranks % group:
            issues.add(
                "shard_group_size",
                f"shard_group_size ({group}) must divide dp x cp ({ranks})",
                {"one_of": divisors(ranks)},
            )
        if self.zero_stage == 0:
            issues.add("shard_group_size", "shard_group_size needs zero_stage >= 1 or 'fsdp'")


class LatencySlo(SpecModel):
    """Latency service-level objectives of an inference deployment, in milliseconds."""

    time_per_output_token: float = spec_field(
        50.0,
        unit="ms",
        description="Time per output token (inter-token latency) objective, milliseconds.",
        gt=0,
        le=60_000,
    )
    time_to_first_token: float = spec_field(
        2000.0,
        unit="ms",
        description="Time to first token objective, milliseconds.",
        gt=0,
        le=600_000,
    )


class InferenceTarget(SpecModel):
    """What an inference fleet must deliver (workload.kind = 'inference')."""

    target_tokens_per_s: float = spec_field(
        ...,
        unit="tokens/s",
        description="Aggregate generated (output) tokens per second the fleet must serve.",
        gt=0,
        le=1e12,
    )
    latency_slo_ms: LatencySlo = section_field(
        LatencySlo(), description="Latency objectives (milliseconds)."
    )
    batch_size: int = spec_field(
        32,
        unit="sequences",
        description="Concurrent sequences decoded per model replica.",
        ge=1,
        le=65_536,
    )
    prompt_tokens: int = spec_field(
        2048, unit="tokens", description="Average prompt (input) length.", ge=1, le=10_000_000
    )
    output_tokens: int = spec_field(
        512, unit="tokens", description="Average generated length.", ge=1, le=10_000_000
    )


AutoOrParallelism = literal_or(
    "auto", Parallelism, "an object {tp, pp, dp, cp, ep, virtual_stages, ...}"
)


class Workload(SpecModel):
    """The model and what to do with it: train it for a number of tokens, or serve it."""

    kind: Literal["training", "inference"] = spec_field(
        "training", unit="enum", description="Train the model, or serve it (inference)."
    )
    parameters_b: float | None = spec_field(
        None,
        unit="billion parameters",
        description=(
            "Stated total parameter count in billions, as a label. Engines derive the count "
            "from the architecture; null = derive only."
        ),
        gt=0,
        le=1_000_000,
    )
    layers: int = spec_field(..., unit="count", description="Transformer layers.", ge=1, le=10_000)
    hidden_size: int = spec_field(
        ..., unit="count (hidden units)", description="Model width d_model.", ge=1, le=1_000_000
    )
    attention_heads: int = spec_field(
        ..., unit="count", description="Query attention heads.", ge=1, le=10_000
    )
    kv_heads: int | None = spec_field(
        None,
        unit="count",
        description="Key/value heads (GQA groups); must divide attention_heads. null = MHA.",
        ge=1,
        le=10_000,
    )
    head_dim: int | None = spec_field(
        None,
        unit="count",
        description="Per-head dimension; null = hidden_size / attention_heads.",
        ge=1,
        le=65_536,
    )
    mla: MultiLatentAttention | None = section_field(
        None,
        description=(
            "Multi-head latent attention (DeepSeek-V2 / V3); head_dim is then the no-RoPE part "
            "of a query/key head and kv_heads must be null (every head gets its own key and "
            "value from the latent). null = multi-head / grouped-query attention."
        ),
    )
    attention_sliding_window_tokens: int | None = spec_field(
        None,
        unit="tokens",
        description=(
            "Sliding-window attention: keys each query sees in the windowed layers (Mistral "
            "7B: 4096; gpt-oss: 128 on alternating layers); null = full causal attention."
        ),
        ge=1,
        le=10_000_000,
    )
    attention_sinks: bool = spec_field(
        False,
        unit="boolean",
        description=(
            "Learnable attention sinks (gpt-oss): one extra logit per head in every softmax. "
            "cuDNN (Transformer Engine) takes it inside the kernel; FlexAttention rescales "
            "the output after it (software_stack.attention_backend flex)."
        ),
    )
    attention_sliding_window_layer_share: float = spec_field(
        1.0,
        unit="fraction",
        description=(
            "Share of the layers that use the sliding window (gpt-oss alternates: 0.5); "
            "ignored without attention_sliding_window_tokens."
        ),
        ge=0.0,
        le=1.0,
    )
    ffn_hidden_size: int = spec_field(
        ...,
        unit="count (hidden units)",
        description="Dense FFN hidden size (per projection when gated).",
        ge=1,
        le=10_000_000,
    )
    gated_mlp: bool = spec_field(
        True,
        unit="boolean",
        description="Gated MLP (SwiGLU: three projections instead of two).",
    )
    tied_embeddings: bool = spec_field(
        False, unit="boolean", description="Input embedding and output head share weights."
    )
    sequence_length: int = spec_field(
        4096, unit="tokens", description="Training / context sequence length.", ge=1, le=10_000_000
    )
    packed_document_tokens: int | None = spec_field(
        None,
        unit="tokens",
        description=(
            "Sequence packing: mean tokens per document when short documents are packed into "
            "each sequence and each attends only within itself (per-document causal masks, "
            "e.g. NeMo / Megatron packed SFT, SQuAD packed to 4096). Attention then costs "
            "per document; the linear layers are unchanged. null = one document per sequence."
        ),
        ge=1,
        le=10_000_000,
    )
    vocab_size: int = spec_field(
        32_000, unit="tokens", description="Vocabulary size.", ge=1, le=10_000_000
    )
    moe: MixtureOfExperts | None = section_field(
        None, description="Mixture-of-experts settings; null for a dense model."
    )
    tokens_to_train: float = spec_field(
        1e12,
        unit="tokens",
        description="Training tokens for the run (e.g. 15e12). Ignored for inference.",
        gt=0,
        le=1e16,
    )
    global_batch_sequences: int = spec_field(
        1024,
        unit="sequences",
        description="Global batch size in sequences per optimizer step.",
        ge=1,
        le=10_000_000,
    )
    precision: Literal["bf16", "fp8", "fp16", "mxfp8", "nvfp4"] = spec_field(
        "bf16",
        unit="enum",
        description=(
            "Compute precision of the matrix multiplies. mxfp8 (FP8 with 32-element block "
            "scales) and nvfp4 (FP4 MLP GEMMs, the rest FP8) are training precisions of "
            "Blackwell's block-scaled tensor cores; other GPUs run them as fp8."
        ),
    )
    software_stack: SoftwareStackChoice = section_field(
        SoftwareStackChoice(),
        description="Training framework whose efficiency profile applies ('auto' by default).",
    )
    fine_tuning: FineTuning | None = section_field(
        None,
        description="Train only part of the weights (LoRA, frozen layers); null = all train.",
    )
    parallelism: AutoOrParallelism = section_field(  # type: ignore[valid-type]
        "auto",
        description="'auto' (the performance engine picks the best layout) or an explicit layout.",
    )
    inference: InferenceTarget | None = section_field(
        None, description="Serving targets; required when kind is 'inference', else null."
    )

    @property
    def kv_heads_effective(self) -> int:
        """Key/value heads the attention core sees: MLA up-projects one per query head."""
        if self.kv_heads is None or self.mla is not None:
            return self.attention_heads
        return self.kv_heads

    @model_validator(mode="after")
    def _check_architecture(self) -> Workload:
        issues = RuleViolations()
        self._check_shape(issues)
        self._check_kind(issues)
        self._check_fine_tuning(issues)
        if isinstance(self.parallelism, Parallelism):
            check_parallel_layout(self, self.parallelism, issues)
        self._check_expert_overlap(issues)
        self._check_fp8_recipe(issues)
        issues.raise_if_any()
        return self

    def _check_fp8_recipe(self, issues: RuleViolations) -> None:
        """The FP8 scaling recipe is a choice of FP8 runs only: MXFP8 and NVFP4 carry their
        own block scales, BF16 / FP16 runs cast nothing."""
        recipe = self.software_stack.fp8_recipe
        if recipe is not None and self.precision != "fp8":
            issues.add(
                "software_stack.fp8_recipe",
                f"fp8_recipe '{recipe}' applies to precision fp8 only (precision is "
                f"{self.precision}); set precision to fp8 or leave fp8_recipe unset",
                {"precision": "fp8"},
            )

    def _check_expert_overlap(self, issues: RuleViolations) -> None:
        """Megatron-Core's combined 1F1B pairs micro-batches of an MoE model, with no pipeline
        or an interleaved one (pipeline_parallel/combined_1f1b.py)."""
        if not self.software_stack.ep_comm_overlap:
            return
        field = "software_stack.ep_comm_overlap"
        if self.moe is None:
            issues.add(field, "overlaps the expert all-to-all: set workload.moe or leave it unset")
        layout = self.parallelism
        if layout == "auto":
            return
        interleaved_or_flat = layout.pp == 1 or layout.virtual_stages > 1
        if layout.pipeline_schedule != "1f1b" or not interleaved_or_flat:
            issues.add(
                field,
                "Megatron-Core's combined 1F1B runs with pipeline_schedule '1f1b' and either "
                f"pp 1 or virtual_stages > 1 (here pp {layout.pp}, virtual_stages "
                f"{layout.virtual_stages}, '{layout.pipeline_schedule}')",
                {"pipeline_schedule": "1f1b", "pp": 1, "virtual_stages_gt": 1},
            )

    def _check_shape(self, issues: RuleViolations) -> None:
        heads, kv = self.attention_heads, self.kv_heads_effective
        if self.mla is not None and self.kv_heads not in (None, heads):
            issues.add(
                "kv_heads",
                "multi-head latent attention up-projects a key and value for every head: "
                f"kv_heads must be null or equal attention_heads ({heads})",
                {"one_of": [heads]},
            )
        if heads % kv:
            issues.add(
                "kv_heads",
                f"kv_heads ({kv}) must divide attention_heads ({heads})",
                {"one_of": divisors(heads)},
            )
        if self.head_dim is None and self.hidden_size % heads:
            issues.add(
                "hidden_size",
                f"hidden_size ({self.hidden_size}) must be a multiple of attention_heads "
                f"({heads}), or set head_dim",
                {"multiple_of": heads},
            )
        self._check_offload(issues)
        packed = self.packed_document_tokens
        if packed is not None and packed > self.sequence_length:
            issues.add(
                "packed_document_tokens",
                f"a packed document ({packed} tokens) cannot be longer than the sequence it is "
                f"packed into (sequence_length {self.sequence_length})",
                {"le": self.sequence_length},
            )
        moe = self.moe
        if moe is not None:
            if moe.top_k > moe.experts:
                issues.add(
                    "moe.top_k",
                    f"top_k ({moe.top_k}) cannot exceed experts ({moe.experts})",
                    {"le": moe.experts},
                )
            if moe.first_dense_layers >= self.layers:
                issues.add(
                    "moe.first_dense_layers",
                    f"first_dense_layers ({moe.first_dense_layers}) must be below layers "
                    f"({self.layers})",
                    {"lt": self.layers},
                )

    def _check_offload(self, issues: RuleViolations) -> None:
        layout = self.parallelism
        if layout == "auto" or not layout.activation_offload_layers:
            return
        per_gpu = -(-self.layers // layout.pp)  # the largest even stage
        if layout.activation_offload_layers > per_gpu:
            issues.add(
                "parallelism.activation_offload_layers",
                f"at most the {per_gpu} layers a GPU holds (layers / pp)",
                {"le": per_gpu},
            )

    def _check_fine_tuning(self, issues: RuleViolations) -> None:
        tuning = self.fine_tuning
        if tuning is not None and tuning.frozen_layers >= self.layers:
            issues.add(
                "fine_tuning.frozen_layers",
                f"frozen_layers ({tuning.frozen_layers}) must leave at least one of the "
                f"{self.layers} layers training",
                {"lt": self.layers},
            )

    def _check_kind(self, issues: RuleViolations) -> None:
        if self.kind == "inference" and self.precision in ("mxfp8", "nvfp4"):
            issues.add(
                "precision",
                f"{self.precision} is a training precision; serving uses bf16, fp16 or fp8",
                {"one_of": ["bf16", "fp16", "fp8"]},
            )
        if self.kind == "inference" and self.inference is None:
            issues.add("inference", "required when kind is 'inference'")
        if self.kind == "training" and self.inference is not None:
            issues.add("inference", "only allowed when kind is 'inference'; set it to null")
        if self.kind == "inference" and self.packed_document_tokens is not None:
            issues.add(
                "packed_document_tokens",
                "sequence packing is a training setting (short documents packed into each "
                "training sequence); serving takes its lengths from inference: set it to null",
            )
        target = self.inference
        if target is not None and target.prompt_tokens + target.output_tokens > (
            self.sequence_length
        ):
            issues.add(
                "inference.output_tokens",
                f"prompt_tokens + output_tokens ({target.prompt_tokens + target.output_tokens}) "
                f"must fit in sequence_length ({self.sequence_length})",
                {"le": max(self.sequence_length - target.prompt_tokens, 0)},
            )
