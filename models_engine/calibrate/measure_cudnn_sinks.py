"""cuDNN fused attention through its graph API (nvidia-cudnn-frontend, the path Transformer
Engine's FusedAttention takes), with and without a learnable sink token and a sliding window.

Megatron-Core trains gpt-oss with Transformer Engine's DotProductAttention, softmax_type
"learnable" (Megatron-Bridge GPTOSSProvider): cuDNN computes the sink inside the fused kernel
and its gradient in the backward. Measured here, forward and backward separately (the backward
graph reads the forward's output and statistics), for the causal mask and a band of `window`
keys (diagonal_band_left_bound), each with and without the sink, over batch, sequence, head
count and head dim, GQA as gpt-oss has it (8 key-value heads).

Needs `pip install nvidia-cudnn-frontend` beside PyTorch (never a dependency of the engine).
"""

import sys

from models_engine.calibrate.timing import time_op

# (batch, query heads, key-value heads, sequence, head dim, windows): gpt-oss at micro-batch
# 1 / 2 / 4 and sequence 8192, a head-dim-128 layer and a 16-head one.
SINK_SHAPES = (
    (1, 64, 8, 4096, 64, (0, 128)),
    (2, 64, 8, 4096, 64, (0, 128, 1024)),
    (4, 64, 8, 4096, 64, (0, 128)),
    (2, 64, 8, 8192, 64, (0, 128)),
    (2, 32, 8, 4096, 128, (0, 128)),
    (2, 16, 8, 4096, 64, (0,)),
)
TINY_SINK_SHAPES = ((1, 4, 2, 256, 64, (0, 64)),)


class _Problem:
    """One shape's tensors and the cuDNN handle on PyTorch's stream."""

    def __init__(self, torch, cudnn, shape, dtype, device):
        batch, heads, kv_heads, seq, head_dim, _ = shape
        self.torch, self.cudnn = torch, cudnn
        self.q = torch.randn(batch, heads, seq, head_dim, device=device, dtype=dtype)
        self.k = torch.randn(batch, kv_heads, seq, head_dim, device=device, dtype=dtype)
        self.v = torch.randn(batch, kv_heads, seq, head_dim, device=device, dtype=dtype)
        self.sink = torch.randn(1, heads, 1, 1, device=device, dtype=torch.float32)
        self.stats = torch.empty(batch, heads, seq, 1, device=device, dtype=torch.float32)
        self.out = torch.empty_like(self.q)
        self.head_dim = head_dim
        self.handle = cudnn.create_handle()
        cudnn.set_stream(handle=self.handle, stream=torch.cuda.current_stream().cuda_stream)

    def graph(self):
        types = self.cudnn.data_type
        return self.cudnn.pygraph(
            io_data_type=types.BFLOAT16,
            intermediate_data_type=types.FLOAT,
            compute_data_type=types.FLOAT,
            handle=self.handle,
        )

    def mask(self, window: int) -> dict:
        kwargs = {"attn_scale": self.head_dim**-0.5, "use_causal_mask": True}
        if window:
            kwargs["diagonal_band_left_bound"] = window
        return kwargs

    def runner(self, graph, pack):
        graph.build([self.cudnn.heur_mode.A])
        size = max(1, graph.get_workspace_size())
        workspace = self.torch.empty(size, device=self.q.device, dtype=self.torch.uint8)
        return lambda: graph.execute(pack, workspace, handle=self.handle)

    def forward(self, window: int, sink: bool):
        g = self.graph()
        tq, tk, tv = (g.tensor_like(t) for t in (self.q, self.k, self.v))
        kwargs = self.mask(window)
        pack = {tq: self.q, tk: self.k, tv: self.v}
        if sink:
            kwargs["sink_token"] = ts = g.tensor_like(self.sink)
            pack[ts] = self.sink
        o, stats = g.sdpa(tq, tk, tv, is_inference=False, **kwargs)
        o.set_output(True).set_dim(list(self.q.shape)).set_stride(list(self.q.stride()))
        stats.set_output(True).set_data_type(self.cudnn.data_type.FLOAT)
        pack.update({o: self.out, stats: self.stats})
        return self.runner(g, pack)

    def backward(self, window: int, sink: bool):
        g = self.graph()
        tensors = (self.q, self.k, self.v, self.out, self.out, self.stats)
        tq, tk, tv, to, tdo, tst = (g.tensor_like(t) for t in tensors)
        grad_out = self.torch.randn_like(self.out)
        pack = {tq: self.q, tk: self.k, tv: self.v, to: self.out, tdo: grad_out, tst: self.stats}
        kwargs = self.mask(window)
        if sink:
            kwargs["sink_token"] = ts = g.tensor_like(self.sink)
            kwargs["dSink_token"] = tds = g.tensor_like(self.sink)
            pack.update({ts: self.sink, tds: self.torch.zeros_like(self.sink)})
        grads = g.sdpa_backward(tq, tk, tv, to, tdo, tst, **kwargs)
        for tensor, like in zip(grads, (self.q, self.k, self.v), strict=True):
            tensor.set_output(True).set_dim(list(like.shape)).set_stride(list(like.stride()))
            pack[tensor] = self.torch.empty_like(like)
        if sink:
            tds.set_output(True)
        return self.runner(g, pack)


def measure_cudnn_sinks(torch, tiny: bool, dtype, device, errors: list[str]) -> list[dict]:
    try:
        import cudnn  # nvidia-cudnn-frontend
    except ImportError as exc:
        raise RuntimeError(
            "--only cudnn-sinks needs cuDNN's Python frontend: pip install nvidia-cudnn-frontend"
        ) from exc

    rows = []
    for shape in TINY_SINK_SHAPES if tiny else SINK_SHAPES:
        problem = _Problem(torch, cudnn, shape, dtype, device)
        for window in shape[5]:
            for sink in (False, True):
                row = _row(shape, window, sink)
                try:  # the forward first: the backward reads its output and statistics
                    row["fwd_ms"] = time_op(torch, problem.forward(window, sink)).median_ms
                    row["bwd_ms"] = time_op(torch, problem.backward(window, sink)).median_ms
                except Exception as exc:  # an unsupported combination: recorded, rest runs
                    errors.append(f"cudnn-sinks {row}: {type(exc).__name__}: {exc}"[:400])
                    continue
                print(f"  cudnn-sinks {row}", file=sys.stderr, flush=True)
                rows.append(row)
    return rows


def _row(shape, window: int, sink: bool) -> dict:
    batch, heads, kv_heads, seq, head_dim, _ = shape
    return {
        "batch": batch,
        "heads": heads,
        "kv_heads": kv_heads,
        "seq": seq,
        "head_dim": head_dim,
        "window": window,
        "sink": sink,
        "query_rows": batch * seq * heads,
    }
