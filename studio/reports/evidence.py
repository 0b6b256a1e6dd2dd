"""The evidence grade of each headline number: which published measurements the engine behind
it was checked against, and how close it came.

There is no validation registry in the engines yet, so this is a small, explicit mapping from a
headline key to the engine tests that compare that quantity with published runs (the tests
print their error tables; the tolerance is the bound each asserts). Every other headline number
says "no published reference" rather than implying an accuracy nobody measured. Keep this in
step with `tests/engine/`: a test that stops comparing a metric must drop its entry here."""

from dataclasses import dataclass

NO_REFERENCE = "no published reference"


@dataclass(frozen=True)
class Evidence:
    grade: str  # "checked" | "none"
    text: str  # what the reader sees
    test: str = ""  # the engine test that does the comparison


_STEP_TIME = Evidence(
    "checked",
    "checked against: NVIDIA DGX Cloud Llama step times (within 7 %; other recipes within 10 %)",
    "tests/engine/test_performance_validation.py",
)

CHECKED: dict[str, Evidence] = {
    "step_time_s": _STEP_TIME,
    # Throughput and MFU are the step time's reciprocals (tokens per step / step time).
    "tokens_per_s": _STEP_TIME,
    "mfu": _STEP_TIME,
    "memory_per_gpu_gib": Evidence(
        "checked",
        "checked against: Korthikanti et al. 2022 memory per GPU (within 5 % per case)",
        "tests/engine/test_memory_korthikanti.py",
    ),
    "mtti_h": Evidence(
        "checked",
        "checked against: Llama 3 405B interruptions (within 2 %, calibration) and "
        "RSC-1 node failures (within 10 %, held out)",
        "tests/engine/test_reliability_published_runs.py",
    ),
}


def evidence_for(metric_key: str) -> Evidence:
    return CHECKED.get(metric_key, Evidence("none", NO_REFERENCE))
