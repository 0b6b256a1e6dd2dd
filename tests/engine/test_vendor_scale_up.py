"""A design that does not state its scale-up domain gets its GPU vendor's own; a stated NVIDIA
NVSwitch domain on an AMD GPU is an error that names the field."""

import pytest

from models_engine.spec import SpecValidationError
from models_engine.validate import validate_design


def mi300x(**compute) -> dict:
    return {
        "workload": {
            "kind": "training",
            "layers": 32,
            "hidden_size": 4096,
            "attention_heads": 32,
            "ffn_hidden_size": 14336,
            "sequence_length": 4096,
            "vocab_size": 128256,
            "global_batch_sequences": 512,
            "precision": "bf16",
            "parallelism": "auto",
        },
        "compute": {"gpu_sku": "mi300x-192gb", "gpu_count": 64, **compute},
    }


def test_unstated_domain_on_amd_is_the_gpus_own_xgmi_board():
    design = validate_design(mi300x())
    domain = design.spec.compute.nvlink_domain
    assert (domain.kind, domain.gpus) == ("custom", 8)


def test_stated_nvswitch_domain_on_amd_names_the_field():
    with pytest.raises(SpecValidationError) as raised:
        validate_design(mi300x(nvlink_domain={"kind": "hgx-nvswitch-8"}))
    assert [e["path"] for e in raised.value.errors] == ["compute.nvlink_domain.kind"]


def test_nvidia_default_domain_is_unchanged():
    doc = mi300x()
    doc["compute"]["gpu_sku"] = "h100-sxm-80gb"
    assert validate_design(doc).spec.compute.nvlink_domain.kind == "hgx-nvswitch-8"
