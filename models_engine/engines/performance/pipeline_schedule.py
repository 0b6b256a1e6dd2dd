"""Pipeline schedules: how long a step's pipeline idles (the bubble) and how many
micro-batches' activations each stage keeps, per schedule, from the papers' closed forms.
numpy-friendly: every argument may be an array over candidate layouts.

Per micro-batch on one stage: F forward, B the whole backward (input and weight gradients,
with any recompute), W the weight-gradient part of B, T = F + B; p stages, v chunks per
rank, m micro-batches per step.

  schedule          bubble                    source
  1f1b, v = 1       (p-1)(F+B)                Narayanan et al. 2021 (SC'21) section 2.2.1
  1f1b, v > 1       (p-1)(F+B)/v              ibid. section 2.2.2 (interleaved 1F1B)
  zb-h1             (p-1)(F+B-2W)             Qi et al. 2023 (arXiv 2401.10241) Table 2,
                                              (p-1)(T_F+T_B-T_W) with T_B = B - W; DeepSeek-V3
                                              Table 2 ("ZB1P") writes it as here
  zb-v              (p-1)(F+B-3W)/2           derivation: ZB-H2's (p-1)(T_F+T_B-2T_W) (Qi
                                              Table 2) on ZB-V's half-stage chunks; zero when
                                              F = B - W = W, as the authors' ZB-V table says
                                              (sail-sg zero-bubble space: bubble 0, memory 1x)
  dualpipe          (p/2-1)(F&B+B-3W)         DeepSeek-V3 report (arXiv 2412.19437) Table 2;
                                              F&B = F + B: the overlapped pair computes one
                                              after the other and hides its communication
                                              (ibid. Figure 4)

In-flight micro-batches on stage i (0-based): 1F1B keeps p - i (the first stage p, i.e. L
layers' activations: Korthikanti et al. 2022 section 4.2.3); interleaving multiplies by
1 + (p-1)/(p v) (ibid.); zb-h1 keeps what 1F1B keeps (Qi Table 2: p M_B); zb-v keeps p on
every rank (its "1x", balanced across workers); dualpipe keeps p + 1 on every rank and holds
two stages' parameters (DeepSeek-V3 Table 2: "PP+1", "2x"). ZB-V and DualPipe run both ends
of the model (embedding and output head) on the first rank. No schedule holds more
micro-batches than the step has.
"""

import numpy as np

# Share of the expert all-to-all that Megatron-Core's combined 1F1B actually runs beside the
# paired micro-batch's compute, MEASURED: Megatron-Bridge's controlled A/B of
# overlap_moe_expert_parallel_comm (skills/nemo-mbridge-perf-expert-parallel-overlap, Qwen3
# 30B-A3B on 16 H100, EP 16, HybridEP, validated 2026-07-27) profiled the same rank and step
# with Nsight Systems: communication concurrent with GEMM and attention rose from 0.11 % to
# 36.55 % of communication time (3,959 ms of about 10.8 s). The rest waits on the dispatcher's
# host synchronisation and on partners whose compute is not ready, so it stays on the critical
# path. Registry case mbridge-ep-overlap-h100-qwen3-30b-a3b-on is its fit case; the same share is
# taken for Blackwell and the other dispatchers (ASSUMED).
COMBINED_1F1B_CONCURRENT_SHARE = 0.3655

SCHEDULES = ("1f1b", "zb-h1", "zb-v", "dualpipe")
ONE_F_ONE_B, ZB_H1, ZB_V, DUALPIPE = range(len(SCHEDULES))
# Model chunks each pipeline rank runs, where the schedule fixes it (1f1b: virtual_stages).
CHUNKS_PER_RANK = {ZB_H1: 1, ZB_V: 2, DUALPIPE: 1}


def schedule_code(name: str) -> int:
    return SCHEDULES.index(name)


def bubble_s(schedule, p, v, stage_s, backward_s, weight_grad_s, microbatches=None):
    """Idle time per run of the pipeline schedule (seconds); stage_s, backward_s and
    weight_grad_s are one micro-batch's T, B and W on a representative (mean) stage.
    The interleaved and zero-bubble formulas need at least p micro-batches per run
    (Narayanan et al. 2021, section 2.2.2; Qi et al. 2024, ZB-H1 / ZB-V); with fewer there
    is nothing to fill the pipeline with and each micro-batch still crosses every stage, so
    the run takes the plain 1F1B time (m + p - 1) T: a single micro-batch takes p T."""
    p = np.asarray(p, dtype=float)
    plain = (p - 1.0) * stage_s
    one_f_one_b = plain / np.maximum(v, 1.0)
    zb_h1 = (p - 1.0) * np.maximum(stage_s - 2.0 * weight_grad_s, 0.0)
    zb_v = (p - 1.0) * np.maximum(stage_s - 3.0 * weight_grad_s, 0.0) / 2.0
    paired = stage_s  # F&B = F + B
    dualpipe = np.maximum(p / 2.0 - 1.0, 0.0) * np.maximum(
        paired + backward_s - 3.0 * weight_grad_s, 0.0
    )
    scheduled = np.select(
        [schedule == ZB_H1, schedule == ZB_V, schedule == DUALPIPE],
        [zb_h1, zb_v, dualpipe],
        one_f_one_b,
    )
    if microbatches is None:
        return scheduled
    return np.where(np.asarray(microbatches) < p, plain, scheduled)


def in_flight_microbatches(schedule, p, v, m, stage_index):
    """Micro-batches whose activations stage `stage_index` (0-based) holds at its peak."""
    p = np.asarray(p, dtype=float)
    v = np.asarray(v, dtype=float)
    interleaved = (schedule == ONE_F_ONE_B) & (p > 1) & (v > 1)
    factor = np.where(interleaved, 1.0 + (p - 1.0) / (p * np.maximum(v, 1.0)), 1.0)
    held = np.where(schedule == DUALPIPE, p + 1.0, (p - stage_index) * factor)
    return np.minimum(held, np.maximum(m, 1.0))


def activation_layers(schedule, p, v, m, first, middle, last):
    """Layers' worth of one micro-batch's activations the busiest stage holds: the first
    stage keeps the most micro-batches, but with an uneven split (a light first stage) the
    second one may hold more (Llama 3 405B: 7 x 16 = 112 on the first, 8 x 15 = 120 on the
    second stage)."""
    p = np.asarray(p, dtype=float)
    on_first = first * in_flight_microbatches(schedule, p, v, m, 0.0)
    on_second = np.where(p > 2, middle * in_flight_microbatches(schedule, p, v, m, 1.0), 0.0)
    on_last = np.where(p > 1, last * in_flight_microbatches(schedule, p, v, m, p - 1.0), 0.0)
    busiest = np.maximum(np.maximum(on_first, on_second), on_last)
    # ZB-V and DualPipe load every rank alike (Qi et al.: ZB-V's peak memory is balanced
    # across workers; DeepSeek-V3: p + 1 on every rank): the largest stage's activations
    # times the micro-batches each rank holds.
    largest = np.maximum(np.maximum(first, last), np.where(p > 2, middle, 0.0))
    balanced = largest * in_flight_microbatches(schedule, p, v, m, 0.0)
    return np.where(ends_on_first_rank(schedule), balanced, busiest)


def ends_on_first_rank(schedule):
    """The first rank runs both ends of the model, embedding and output head: ZB-V's V
    places chunks 0 and 2p-1 on rank 0; DualPipe puts stage 0 and stage p-1 there."""
    return (schedule == ZB_V) | (schedule == DUALPIPE)


def stages_held(schedule):
    """Pipeline stages whose parameters one rank holds (DualPipe: stage i and p-1-i; ZB-V's
    two half-stage chunks are one stage's worth)."""
    return np.where(schedule == DUALPIPE, 2.0, 1.0)


def combined_1f1b_allowed(schedule, p, v):
    """Megatron-Core's combined 1F1B (overlap_moe_expert_parallel_comm) exists for a step
    without pipelining and for interleaved 1F1B (pipeline_parallel/combined_1f1b.py:
    combined_1f1b_schedule_for_no_pipelining / _for_interleaved_pipelining)."""
    return (schedule == ONE_F_ONE_B) & ((p <= 1) | (v > 1))


def combined_1f1b_unpaired_share(p, v, m):
    """Share of a rank's micro-batch chunks that Megatron-Core's combined 1F1B runs alone, not
    beside another micro-batch's opposite pass: without pipelining the first forward and the
    last backward (1 of m); interleaved, rank 0 warms up with 2 (p - 1) + (v - 1) p forward
    chunks, one more with the overlap on (Megatron-Core schedules.py,
    forward_backward_pipelining_with_interleaving), and cools down with as many backward
    chunks, of its m v."""
    m = np.maximum(m, 1.0)
    warmup = np.where(p > 1, 2.0 * (p - 1.0) + (v - 1.0) * p + 1.0, 1.0)
    return np.clip(warmup / (m * np.maximum(v, 1.0)), 0.0, 1.0)
