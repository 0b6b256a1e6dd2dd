"""`security` section: the controls in place. Defaults describe a typical well-run shop;
the security engine turns gaps into findings (nothing here is a validation error)."""

from __future__ import annotations

from typing import Literal

from ._base import SpecModel, spec_field


class Security(SpecModel):
    """Security controls of the cluster and its data."""

    network_segmentation: Literal["flat", "management-separated", "fully-segmented"] = spec_field(
        "fully-segmented",
        unit="enum",
        description=(
            "flat: one network; management-separated: management/OOB apart, data and "
            "storage shared; fully-segmented: management, compute data and storage apart."
        ),
    )
    identity_federation: bool = spec_field(
        True, unit="boolean", description="Central identity provider (SSO / federation)."
    )
    mfa: Literal["none", "privileged-only", "all-users"] = spec_field(
        "all-users", unit="enum", description="Multi-factor authentication coverage."
    )
    rbac: bool = spec_field(
        True, unit="boolean", description="Role-based access control on schedulers and data."
    )
    encryption_at_rest: bool = spec_field(
        True, unit="boolean", description="Storage tiers encrypted at rest."
    )
    encryption_in_transit: bool = spec_field(
        True, unit="boolean", description="TLS on frontend, control-plane and storage traffic."
    )
    rdma_encryption: bool = spec_field(
        False,
        unit="boolean",
        description="Compute-fabric RDMA traffic encrypted (e.g. IPsec/MACsec offload).",
    )
    key_management: Literal["none", "software", "kms", "hsm"] = spec_field(
        "kms", unit="enum", description="Where encryption keys live."
    )
    image_scanning: bool = spec_field(
        True, unit="boolean", description="Container images scanned for vulnerabilities."
    )
    sbom: bool = spec_field(
        False, unit="boolean", description="Software bill of materials kept for images."
    )
    signed_artifacts: bool = spec_field(
        False, unit="boolean", description="Images and model artifacts signed and verified."
    )
    audit_logging: bool = spec_field(
        True, unit="boolean", description="Administrative and access actions logged."
    )
    siem: bool = spec_field(
        True, unit="boolean", description="Logs forwarded to a SIEM with alerting."
    )
    confidential_computing: bool = spec_field(
        False, unit="boolean", description="GPU/CPU confidential computing (TEE) in use."
    )
    physical_access_control: bool = spec_field(
        True, unit="boolean", description="Badge / biometric control of the data hall."
    )
    data_classification: bool = spec_field(
        True, unit="boolean", description="Datasets labelled by sensitivity."
    )
    multi_tenant_fabric: bool = spec_field(
        False,
        unit="boolean",
        description="Fabric shared by several tenants (raises isolation requirements).",
    )
    model_weight_access_logging: bool = spec_field(
        False, unit="boolean", description="Every read of model weights is logged."
    )
    dataset_provenance_tracking: bool = spec_field(
        False, unit="boolean", description="Origin and licence of every dataset recorded."
    )
