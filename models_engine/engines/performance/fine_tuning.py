"""Which weights a run trains (`workload.fine_tuning`) and what that removes from the step.

Per linear layer, backward = data gradient (dgrad) + weight gradient (wgrad). A frozen weight
needs no wgrad; a layer below the lowest trainable one needs no backward at all (nothing under
it wants a gradient). LoRA freezes every base weight (dgrad only) and adds two small adapter
GEMMs per linear layer (x A, then (x A) B), each with its full forward and backward (Hu et al.
2021, LoRA, section 4.1). Layers are costed as the average layer, so with pp > 1 the frozen
leading layers are spread over the stages (the first stages are in fact lighter).
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Tuning:
    mode: str = "full"  # "full", "lora" or "frozen"
    lora_rank: int = 0
    frozen_layers: int = 0
    layers: int = 1
    lora_targets: str = "all"  # "all", "attention" or "qkv": the linear layers with adapters

    @property
    def training_share(self) -> float:
        """Share of the transformer layers that train (and so run a backward pass)."""
        if self.mode != "frozen":
            return 1.0
        return (self.layers - self.frozen_layers) / self.layers

    @property
    def backward_share(self) -> float:
        return self.training_share

    @property
    def weight_grad_share(self) -> float:
        """Share of the base weights that get a weight gradient."""
        return 0.0 if self.mode == "lora" else self.training_share

    @property
    def adapters(self) -> bool:
        return self.mode == "lora"

    def adapts(self, module: str) -> bool:
        """Whether the linear layer `module` (qkv, proj or mlp) carries a LoRA adapter."""
        if not self.adapters:
            return False
        return module in LORA_TARGET_MODULES[self.lora_targets]

    @property
    def is_full(self) -> bool:
        return self.mode == "full" or (self.mode == "frozen" and self.frozen_layers == 0)


# The linear layers each `fine_tuning.lora_targets` choice adapts.
LORA_TARGET_MODULES = {
    "all": frozenset({"qkv", "proj", "mlp"}),
    "attention": frozenset({"qkv", "proj"}),
    "qkv": frozenset({"qkv"}),
}

FULL = Tuning()


def tuning_of(workload) -> Tuning:
    spec = workload.fine_tuning
    if spec is None:
        return Tuning(layers=workload.layers)
    return Tuning(
        mode=spec.mode,
        lora_rank=spec.lora_rank if spec.mode == "lora" else 0,
        lora_targets=spec.lora_targets,
        frozen_layers=spec.frozen_layers if spec.mode == "frozen" else 0,
        layers=workload.layers,
    )


def adapter_params_per_layer(shape, tuning: Tuning) -> float:
    """LoRA adapter weights of one (dense) layer: r x (in + out) per linear layer."""
    if not tuning.adapters:
        return 0.0
    r = tuning.lora_rank
    h = shape.hidden
    qkv = r * (h + shape.qkv_width) if tuning.adapts("qkv") else 0.0
    proj = r * (shape.attention_width + h) if tuning.adapts("proj") else 0.0
    mlp = 0.0
    if tuning.adapts("mlp"):
        mlp = r * (h + (shape.mlp_matrices - 1) * shape.ffn) + r * (shape.ffn + h)
    return qkv + proj + mlp


def layer_params(shape) -> float:
    """Weights of all transformer layers (dense, shared and routed experts), no embedding."""
    total = shape.layers * shape.dense_params_per_layer()
    total += shape.dense_layers * shape.dense_mlp_params()
    experts = shape.moe_layer_expert_params() + shape.shared_experts * shape.expert_params()
    return total + shape.moe_layers * experts


def layer_trained_share(shape, tuning: Tuning) -> float:
    """Trained weights (LoRA: the adapters) over the base weights of the transformer layers:
    what scales their gradients, optimizer states, optimizer step and data-parallel gradient
    reduction. Spread evenly over the stages, as the average layer is (module docstring)."""
    if tuning.adapters:
        return shape.layers * adapter_params_per_layer(shape, tuning) / layer_params(shape)
    return tuning.training_share


def state_shares(shape, tuning: Tuning) -> dict:
    """memory.model_state_bytes' fine-tuning arguments for the transformer layers' weights."""
    share = layer_trained_share(shape, tuning)
    return {"trained_share": share, "adapter_share": share if tuning.adapters else 0.0}


def embedding_trained_share(shape, tuning: Tuning, copies: float = 1.0):
    """Share of the `copies` embedding matrices a stage holds (input embedding, plus the
    output head where it sits on that stage) that train: LoRA freezes both; freezing layers
    freezes the input embedding but trains the head (one matrix if tied)."""
    if tuning.is_full:
        return 1.0
    if tuning.adapters:
        return 0.0
    return 1.0 if shape.tied_embeddings else (copies - 1.0) / copies


def trainable_params(shape, tuning: Tuning) -> float:
    """Weights that get gradients and optimizer states (what memory and the data-parallel
    gradient reduction should count)."""
    total = shape.layers * shape.dense_params_per_layer()
    total += shape.dense_layers * shape.dense_mlp_params()
    experts = shape.moe_layer_expert_params() + shape.shared_experts * shape.expert_params()
    total += shape.moe_layers * experts
    total += shape.vocab * shape.hidden * (1 if shape.tied_embeddings else 2)
    if tuning.adapters:
        return shape.layers * adapter_params_per_layer(shape, tuning)
    if tuning.mode == "frozen":
        # The embedding is frozen; the output head (tied or not) trains.
        layers = total - shape.vocab * shape.hidden * (1 if shape.tied_embeddings else 2)
        return layers * tuning.training_share + shape.vocab * shape.hidden
    return total
