"""Activation offloading to host memory (`workload.parallelism.activation_offload_layers`,
Megatron-Core cpu_offloading_num_layers): the copies to and from the host, and what the
compute beside them does not hide.

Host link per GPU, bytes/s in each direction:
  x86 hosts (SXM, PCIe and OAM boards): PCIe Gen5 x16, 32 GT/s x 16 lanes with 128b/130b
      encoding = 63 GB/s (PCI-SIG PCIe 5.0 base specification).
  Grace superchips (GB200 / GB300): NVLink-C2C, 900 GB/s bidirectional per Grace CPU (NVIDIA
      GB200 NVL72 specifications), which feeds its two GPUs: 225 GB/s per direction per GPU
      (ASSUMPTION: split evenly between the two).
"""

import numpy as np

PCIE_GEN5_X16_BYTES_PER_S = 32e9 * 16 / 8 * 128 / 130
NVLINK_C2C_BYTES_PER_S = 900e9 / 2 / 2  # per direction, per GPU of a Grace's two
HOST_LINK_BYTES_PER_S = {"superchip": NVLINK_C2C_BYTES_PER_S}


def host_link_bytes_per_s(gpu) -> float:
    """One direction of the GPU's link to host memory."""
    return HOST_LINK_BYTES_PER_S.get(gpu.form_factor, PCIE_GEN5_X16_BYTES_PER_S)


def offload_exposed_s(layer_bytes, offload_layers, stage_layers, forward_s, backward_s, link):
    """Exposed seconds per micro-batch on one stage: each offloaded layer's activations go to
    the host while the next layer computes forward and come back while the layer after it
    computes backward (double-buffered, as Megatron-Core's offload context does), so a copy
    longer than one layer's compute shows."""
    offload = np.minimum(np.asarray(offload_layers, dtype=float), stage_layers)
    per_layer = np.maximum(stage_layers, 1.0)
    copy = layer_bytes / link
    forward = np.maximum(copy - forward_s / per_layer, 0.0)
    backward = np.maximum(copy - backward_s / per_layer, 0.0)
    return offload * (forward + backward)
