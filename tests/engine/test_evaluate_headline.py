"""The what-if fast path reports exactly the headline of the full evaluation."""

import pytest

from models_engine import SpecValidationError, evaluate, evaluate_headline
from tests.conftest import example_spec


@pytest.mark.parametrize("slug", ["llama3-16k-h100-roce", "two-region-hierarchical"])
def test_headline_fast_path_equals_the_full_evaluation(slug):
    spec = example_spec(slug)
    assert evaluate_headline(spec) == evaluate(spec)["headline"]


def test_headline_fast_path_validates_like_evaluate():
    spec = example_spec("llama3-16k-h100-roce")
    spec["compute"]["gpu_count"] = 60
    with pytest.raises(SpecValidationError) as refused:
        evaluate_headline(spec)
    assert any(e["path"] == "compute.gpu_count" for e in refused.value.errors)
