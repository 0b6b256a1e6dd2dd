"""Sliding-window attention (workload.attention_sliding_window_tokens): windowed layers
attend to at most `window` keys per query, so their attention FLOPs and time fall from
~s/2 keys per query to ~window; a window as long as the sequence is plain causal attention."""

import copy

import pytest

from models_engine.engines.performance.flops import attention_flops_per_token
from models_engine.engines.performance.shapes import model_shape
from models_engine.spec import SpecValidationError, parse_design
from tests.engine.test_performance_validation import llama_8b, run


def doc_with_window(window: int | None, share: float = 1.0) -> dict:
    doc = copy.deepcopy(llama_8b(8, "bf16"))
    doc["workload"]["attention_sliding_window_tokens"] = window
    doc["workload"]["attention_sliding_window_layer_share"] = share
    return doc


def shape_of(doc: dict):
    return model_shape(parse_design(doc).workload)


def test_a_window_as_long_as_the_sequence_is_causal_attention():
    causal = shape_of(doc_with_window(None))
    whole = shape_of(doc_with_window(causal.seq_len))
    # Causal: (s + 1) / 2 keys per query on average against the convention's s / 2.
    assert attention_flops_per_token(whole) == pytest.approx(
        attention_flops_per_token(causal), rel=1e-3
    )


def test_windowed_layers_count_only_the_keys_in_the_window():
    causal = shape_of(doc_with_window(None))
    s, w = causal.seq_len, 128
    half = shape_of(doc_with_window(w, share=0.5))  # gpt-oss: alternating layers
    # Query i attends min(i + 1, w) keys: mean w - w (w - 1) / 2s.
    windowed = w - w * (w - 1) / (2 * s)
    expected = 0.5 * (s + 1) / 2 + 0.5 * windowed
    assert half.attention_keys_per_query == pytest.approx(expected)
    ratio = attention_flops_per_token(half) / attention_flops_per_token(causal)
    assert ratio == pytest.approx(expected / (s / 2), rel=1e-9)


def test_a_window_shortens_the_step_and_not_the_gemms():
    full, windowed = run(doc_with_window(None)), run(doc_with_window(128))
    assert windowed["step_time_s"] < full["step_time_s"]
    # Attention is a minority of a Llama 8B step at its sequence length: the step falls by
    # less than a third.
    assert windowed["step_time_s"] > 0.66 * full["step_time_s"]


def test_a_window_must_be_positive():
    with pytest.raises(SpecValidationError, match="attention_sliding_window_tokens"):
        parse_design(doc_with_window(0))
