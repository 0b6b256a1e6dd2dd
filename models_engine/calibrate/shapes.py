"""The shapes measured: those of GPT layers (MHA, 4h MLP, head dim 128), full or tiny.

`tiny` shapes run in seconds on a CPU: they check the tool end to end, not a GPU.
"""

from dataclasses import dataclass

HEAD_DIM = 128
ATTENTION_TOKENS = 8192  # batch x sequence per attention measurement


@dataclass(frozen=True)
class Shapes:
    hidden_sizes: tuple[int, ...]
    token_counts: tuple[int, ...]
    square: int
    attention_seqs: tuple[int, ...]
    attention_tokens: int
    head_dim: int
    block_hidden_sizes: tuple[int, ...]
    block_seq: int
    block_micro_batches: tuple[int, ...]
    copy_bytes: tuple[int, ...]
    fp8_sizes: tuple[int, ...]


FULL = Shapes(
    hidden_sizes=(2048, 4096, 8192, 12288),
    token_counts=(2048, 8192),
    square=8192,
    attention_seqs=(2048, 4096, 8192),
    attention_tokens=ATTENTION_TOKENS,
    head_dim=HEAD_DIM,
    block_hidden_sizes=(4096, 8192),
    block_seq=2048,
    block_micro_batches=(1, 2, 4),
    copy_bytes=(1 << 30, 1 << 28),
    fp8_sizes=(2048, 4096, 8192, 16384),
)

TINY = Shapes(
    hidden_sizes=(64, 128),
    token_counts=(64,),
    square=128,
    attention_seqs=(64, 128),
    attention_tokens=256,
    head_dim=32,
    block_hidden_sizes=(64,),
    block_seq=64,
    block_micro_batches=(1, 2),
    copy_bytes=(1 << 20,),
    fp8_sizes=(64,),
)


def layer_gemms(hidden: int, tokens: int) -> list[tuple[str, str, int, int, int]]:
    """(layer, pass, M, N, K) of one GPT layer's GEMMs in `nn.Linear` layouts.

    A linear with weight [out, in] on activations [tokens, in]: forward M=tokens, N=out, K=in;
    the input gradient (dgrad) M=tokens, N=in, K=out; the weight gradient (wgrad) M=out, N=in,
    K=tokens.
    """
    linears = {
        "qkv": (hidden, 3 * hidden),
        "proj": (hidden, hidden),
        "fc1": (hidden, 4 * hidden),
        "fc2": (4 * hidden, hidden),
    }
    return linear_gemms(linears, tokens)


def linear_gemms(
    linears: dict[str, tuple[int, int]], tokens: int
) -> list[tuple[str, str, int, int, int]]:
    """(name, pass, M, N, K) of the forward, input-gradient and weight-gradient GEMMs of each
    linear {name: (fan_in, fan_out)} applied to `tokens` rows, in `nn.Linear` layouts."""
    rows = []
    for name, (fan_in, fan_out) in linears.items():
        rows.append((name, "fwd", tokens, fan_out, fan_in))
        rows.append((name, "dgrad", tokens, fan_in, fan_out))
        rows.append((name, "wgrad", fan_out, fan_in, tokens))
    return rows
