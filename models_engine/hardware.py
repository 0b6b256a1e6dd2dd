"""The hardware figures an evaluation runs on, resolved once from the catalog or from an inline
custom SKU, so engines never care where a number came from."""

from dataclasses import dataclass

from models_engine.catalog import Catalog


@dataclass(frozen=True)
class GpuFigures:
    id: str
    name: str
    bf16_dense_tflops: float
    fp8_dense_tflops: float | None
    hbm_gb: float
    hbm_bandwidth_tbytes_per_s: float
    nvlink_gbytes_per_s_per_gpu: float | None
    tdp_w: float
    price_usd: float | None
    # Dense FP4 peak (Blackwell block-scaled tensor cores: NVFP4 / MX formats), or None.
    fp4_dense_tflops: float | None = None
    # Imported kernel measurement (catalog/measured.py MeasuredKernels as a dict), or None.
    measured_efficiency: dict | None = None
    # sxm / pcie / superchip / oam: sets the host link (performance/offload.py); a custom SKU
    # is taken as a board on an x86 host
    form_factor: str = "sxm"

    @property
    def hbm_capacity_gib(self) -> float:
        """HBM 'GB' as vendors print it are binary-sized stacks: nvidia-smi reports 81,559 MiB
        (79.6 GiB) for the H100 '80 GB' and 81,920 MiB for the A100 '80 GB', so the printed
        figure is taken as GiB of capacity."""
        return self.hbm_gb


def resolve_gpu(compute, catalog: Catalog) -> GpuFigures:
    if compute.custom_gpu is not None:
        custom = compute.custom_gpu
        return GpuFigures(
            id="custom",
            name=custom.name,
            bf16_dense_tflops=custom.bf16_dense_tflops,
            fp8_dense_tflops=custom.fp8_dense_tflops,
            hbm_gb=custom.hbm_gb,
            hbm_bandwidth_tbytes_per_s=custom.hbm_bandwidth_tbytes_per_s,
            nvlink_gbytes_per_s_per_gpu=custom.nvlink_gbytes_per_s_per_gpu,
            tdp_w=custom.tdp_w,
            price_usd=custom.price_usd,
        )
    sku = catalog.get("gpus", compute.gpu_sku)
    return GpuFigures(
        id=sku.id,
        name=sku.name,
        bf16_dense_tflops=sku.bf16_dense_tflops,
        fp8_dense_tflops=sku.fp8_dense_tflops,
        hbm_gb=sku.hbm_gb,
        hbm_bandwidth_tbytes_per_s=sku.hbm_bandwidth_tb_per_s,
        nvlink_gbytes_per_s_per_gpu=sku.nvlink_bandwidth_gb_per_s_per_gpu,
        tdp_w=sku.tdp_w,
        price_usd=sku.price_usd,
        fp4_dense_tflops=sku.fp4_dense_tflops,
        measured_efficiency=(
            sku.measured_efficiency.model_dump() if sku.measured_efficiency else None
        ),
        form_factor=sku.form_factor,
    )
