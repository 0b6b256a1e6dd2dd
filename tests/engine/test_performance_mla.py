"""Multi-head latent attention (MLA): weights, FLOPs, stored activations, the inference KV
cache and the context-parallel exchange, against the published DeepSeek-V3 shape and hand
derivations.

DeepSeek-V3 (arXiv 2412.19437 section 4.2 and its config.json): 61 layers, hidden 7168, 128
heads, query latent 1536, key/value latent 512, query/key head 128 no-RoPE + 64 RoPE, value
head 128; 3 dense layers (FFN 18432) then 58 MoE layers of 256 routed experts (width 2048,
top-8) + 1 shared; vocab 129280. Published: 671 B parameters in the main model, 37 B
activated per token (model card, "Model Summary").
"""

import pytest
from pydantic import ValidationError

from models_engine.engines.performance.attention_shape import AttentionShape
from models_engine.engines.performance.flops import attention_flops_per_token
from models_engine.engines.performance.memory import activation_bytes_per_layer
from models_engine.engines.performance.memory_fit import explicit_layout, inference_memory_gib
from models_engine.engines.performance.shapes import model_shape
from models_engine.spec import Workload
from models_engine.spec.workload import Parallelism
from tests.engine.test_performance_moe import deepseek_v3 as recipe
from tests.engine.test_performance_moe import run

MLA = {"q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "v_head_dim": 128}


def deepseek_v3(**overrides) -> dict:
    workload = {
        "kind": "training",
        "layers": 61,
        "hidden_size": 7168,
        "attention_heads": 128,
        "head_dim": 128,
        "mla": dict(MLA),
        "ffn_hidden_size": 18432,
        "gated_mlp": True,
        "tied_embeddings": False,
        "sequence_length": 4096,
        "vocab_size": 129280,
        "global_batch_sequences": 4096,
        "precision": "bf16",
        "moe": {
            "experts": 256,
            "top_k": 8,
            "expert_ffn_hidden_size": 2048,
            "shared_experts": 1,
            "first_dense_layers": 3,
        },
    }
    workload.update(overrides)
    return workload


def test_attention_weights_are_the_five_mla_projections_by_hand():
    shape = model_shape(Workload(**deepseek_v3()))
    by_hand = (
        7168 * 1536  # hidden -> query latent
        + 1536 * 128 * (128 + 64)  # query latent -> per-head query (no-RoPE + RoPE)
        + 7168 * (512 + 64)  # hidden -> key/value latent + shared RoPE key
        + 512 * 128 * (128 + 128)  # key/value latent -> per-head key (no-RoPE) and value
        + 128 * 128 * 7168  # output projection
        + 1536
        + 512  # the two latent RMSNorm weights
    )
    assert shape.attention_params() == by_hand
    assert by_hand == pytest.approx(187.1e6, rel=1e-3)


def test_deepseek_v3_parameters_match_the_model_card():
    shape = model_shape(Workload(**deepseek_v3()))
    active_b = shape.active_params_per_token() / 1e9
    # Total: every routed expert, the embedding and the untied output head.
    total_b = (
        shape.layers * shape.attention_params()
        + shape.dense_layers * shape.dense_mlp_params()
        + shape.moe_layers * (shape.moe_layer_expert_params() + 3 * 7168 * 2048)
        + 2 * shape.vocab * shape.hidden
    ) / 1e9
    print(f"\nDeepSeek-V3: total {total_b:.1f} B (card 671), active {active_b:.1f} B (card 37)")
    assert total_b == pytest.approx(671, rel=0.01)
    assert active_b == pytest.approx(37, rel=0.03)


def test_attention_core_flops_use_the_query_key_and_value_head_dims():
    """QK^T runs over 192 dims per head, AV over 128: 6 x s x heads x (192 + 128) / 2 per token
    per layer, forward + backward, causal."""
    shape = model_shape(Workload(**deepseek_v3()))
    assert attention_flops_per_token(shape) == pytest.approx(6 * 4096 * 128 * 160 * 61)
    plain = AttentionShape(hidden=4096, heads=32, kv_heads=8, head_dim=128)
    assert plain.score_width == 32 * 128  # unchanged for multi-head / grouped-query attention


def test_down_projections_are_replicated_over_tensor_parallel_ranks():
    attention = model_shape(Workload(**deepseek_v3())).attention
    width = attention.input_projection_width
    replicated = 1536 + 512 + 64
    sharded = 128 * 192 + 128 * 256
    assert width(1) == replicated + sharded
    assert width(8) == replicated + sharded / 8


def test_inference_kv_cache_holds_the_latent_not_per_head_keys_and_values():
    """DeepSeek-V2 section 2.1.3: (d_c + d_h^R) = 512 + 64 elements per token and layer,
    whatever the TP size; the same model entered as multi-head attention caches
    2 x 128 x 128 = 32768, 57x more."""
    inference = {
        "kind": "inference",
        "precision": "bf16",
        "inference": {"target_tokens_per_s": 1000, "batch_size": 8, "prompt_tokens": 2048},
    }
    workload = Workload(**deepseek_v3(**inference))
    output = workload.inference.output_tokens
    context = 2048 + output
    for tp in (1, 8):
        layout = Parallelism(tp=tp, pp=1, dp=1)
        gib = inference_memory_gib(workload, explicit_layout(layout))["kv_cache"]
        assert gib * 2**30 == pytest.approx(61 * 576 * context * 8 * 2)
    mha = Workload(**deepseek_v3(mla=None, **inference))
    mha_gib = inference_memory_gib(mha, explicit_layout(Parallelism(tp=1, pp=1, dp=1)))
    assert mha_gib["kv_cache"] / gib == pytest.approx(32768 / 576)


def test_stored_activations_count_mla_widths_and_reduce_to_korthikanti_without_it():
    s, b, h = 4096, 1, 7168
    plain = AttentionShape(hidden=h, heads=56, kv_heads=56, head_dim=128)
    layer = {
        "seq_len": s,
        "micro_batch": b,
        "hidden": h,
        "heads": 56,
        "tp": 1,
        "sequence_parallel": False,
        "recompute": "selective",
    }
    korthikanti = activation_bytes_per_layer(**layer)
    assert korthikanti == 34 * s * b * h
    same = activation_bytes_per_layer(
        **layer,
        attention_sharded=plain.stored_sharded_bytes_per_hidden(),
        attention_replicated=plain.stored_replicated_bytes_per_hidden(),
    )
    assert same == korthikanti
    mla = model_shape(Workload(**deepseek_v3())).attention
    # Q, K (192 per head), V and the output (128) in bf16; the input, the three latents
    # (1536 + 512 + 64) in bf16 and the dropout mask (1 byte) as Korthikanti.
    by_hand = 2 * 128 * (192 + 192 + 128 + 128) + 2 * (1536 + 512 + 64) + 2 * h + h
    stored = mla.stored_sharded_bytes_per_hidden() + mla.stored_replicated_bytes_per_hidden()
    assert stored * h == pytest.approx(by_hand)


def test_context_parallel_ring_passes_up_projected_keys_and_values():
    """Megatron-Core runs MLA's ring attention on the per-head keys (192) and values (128)."""
    attention = model_shape(Workload(**deepseek_v3())).attention
    assert attention.kv_exchange_width(2) == 64 * (192 + 128)
    gqa = AttentionShape(hidden=8192, heads=64, kv_heads=8, head_dim=128)
    assert gqa.kv_exchange_width(16) == 2 * 1 * 128  # a KV head is replicated below tp


def test_mla_with_grouped_kv_heads_is_a_field_error():
    with pytest.raises(ValidationError) as raised:
        Workload(**deepseek_v3(kv_heads=8))
    assert "kv_heads" in str(raised.value)
    assert Workload(**deepseek_v3(kv_heads=128)).kv_heads_effective == 128


def test_mla_changes_the_step_and_keeps_the_memory_fit_consistent():
    """The same DeepSeek-V3 run entered with MLA and as 128 x 128 multi-head attention: MLA
    stores more per token (per-head 192-dim queries and keys, the latents) and has fewer
    projection weights."""
    doc = recipe("h100-sxm-80gb", 512, 2, 8, 64, 32, 4096)
    with_mla = run(doc)
    doc["workload"]["mla"] = None
    doc["workload"]["kv_heads"] = 2
    without = run(doc)
    assert with_mla["model"]["parameters_total_b"] < without["model"]["parameters_total_b"]
    assert (
        with_mla["memory"]["per_gpu_gib"]["activations"]
        > (without["memory"]["per_gpu_gib"]["activations"])
    )
    assert with_mla["step_time_s"] != pytest.approx(without["step_time_s"], rel=1e-3)
