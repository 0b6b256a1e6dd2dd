"""Derived facts the security checks read, besides the spec itself.

Other engines know more than the spec says (the fabric engine knows which networks share
switches, the regions engine where data really flows, the reliability engine the failure
domains). They pass those findings to `evaluate_security(..., facts={name: value})`. Until
they do, `derive_facts(spec)` computes every fact from the spec alone, conservatively; a
provided fact always replaces the derived one.

Each fact below is a function whose docstring is the contract: the name, the value type,
and what the value means. `FACTS` maps the name to its type and description.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml

from models_engine.spec import DesignSpec

# EU member states (ISO 3166-1 alpha-2; Greece also as "EL", the EU's own code). A site in
# one of them is also in the "EU" regime, so a dataset with residency ["EU"] may live there.
# Source: https://european-union.europa.eu/principles-countries-history/eu-countries_en
# fmt: off
EU_MEMBER_STATES = frozenset({
    "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "EL", "HU",
    "IE", "IT", "LV", "LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE",
})
# fmt: on
# Strategies whose cross-site traffic carries model state trained on each site's data.
# "federated" is left out on purpose: it is the strategy chosen to keep data in place.
_STATE_SHARING_STRATEGIES = ("synchronous", "hierarchical", "async-averaging")


@dataclass(frozen=True)
class Fact:
    """A named fact: its value type ("bool", "int", "list", "bool_or_null") and meaning."""

    name: str
    kind: str
    description: str
    derive: Callable[[DesignSpec], Any]

    def accepts(self, value: Any) -> bool:
        """Whether `value` has this fact's type (used to check facts other engines pass)."""
        if self.kind == "bool":
            return isinstance(value, bool)
        if self.kind == "bool_or_null":
            return value is None or isinstance(value, bool)
        if self.kind == "int":
            return isinstance(value, int) and not isinstance(value, bool)
        if self.kind == "list":
            return isinstance(value, list)
        raise ValueError(f"unknown fact kind {self.kind!r}")  # pragma: no cover


# Same regime, two spellings: ISO "GB" and common "UK"; ISO "GR" and the EU's "EL".
_ALIASES = {"UK": "GB", "EL": "GR"}


def canonical_jurisdiction(code: str) -> str:
    code = code.strip().upper()
    return _ALIASES.get(code, code)


def jurisdictions_of(code: str) -> frozenset[str]:
    """The legal regimes a site with jurisdiction `code` is in: itself, plus "EU" for a
    member state. A site coded "EU" is only in "EU" (it may be in any member state)."""
    code = canonical_jurisdiction(code)
    return frozenset({code, "EU"}) if code in EU_MEMBER_STATES else frozenset({code})


def regime_of(code: str) -> str:
    """The widest regime of a site: "EU" for member states, else the code itself."""
    code = canonical_jurisdiction(code)
    return "EU" if code in EU_MEMBER_STATES else code


def _allowed(site_jurisdiction: str, residency: list[str]) -> bool:
    wanted = {canonical_jurisdiction(code) for code in residency}
    return bool(jurisdictions_of(site_jurisdiction) & wanted)


# --- fabric -------------------------------------------------------------------------------


def management_shares_compute_fabric(spec: DesignSpec) -> bool:
    """fabric.management_shares_compute_fabric (bool): management / in-band control traffic
    rides the GPU compute fabric. From the spec: the security section says the network is
    flat, or the frontend (in-band management and user) network is converged onto the
    compute fabric."""
    return (
        spec.security.network_segmentation == "flat"
        or spec.fabric.frontend_network.mode == "converged"
    )


def frontend_on_compute_fabric(spec: DesignSpec) -> bool:
    """fabric.frontend_on_compute_fabric (bool): the user-facing (frontend) network is carried
    on the compute fabric, so user endpoints can reach GPU-node RDMA interfaces."""
    return spec.fabric.frontend_network.mode == "converged"


def storage_on_compute_fabric(spec: DesignSpec) -> bool:
    """fabric.storage_on_compute_fabric (bool): storage traffic is carried on the compute
    fabric (storage_network.mode = converged) instead of its own network."""
    return spec.fabric.storage_network.mode == "converged"


def rdma_on_shared_fabric(spec: DesignSpec) -> bool:
    """fabric.rdma_on_shared_fabric (bool): compute-fabric RDMA traffic shares links and
    switches with another tenant or with the user-facing network, so a party other than the
    job's owner can sit on its path. From the spec: security.multi_tenant_fabric, or the
    frontend network converged onto the compute fabric."""
    return spec.security.multi_tenant_fabric or frontend_on_compute_fabric(spec)


# --- network (the network engine passes its own, from NetworkResult.isolation) ------------


def tenant_segments(spec: DesignSpec) -> int:
    """network.tenant_segments (int): separate tenant segments the logical network gives the
    compute fabric: one VRF with its own L3 VNI and route targets per tenant on Ethernet, one
    partition key per tenant on InfiniBand. From the spec: the number of tenants (their names
    are unique, so are their segments)."""
    return len(spec.network.tenants)


def bgp_underlay(spec: DesignSpec) -> bool:
    """network.bgp_underlay (bool): the compute fabric runs a routed eBGP underlay (RoCE);
    an InfiniBand fabric has no BGP sessions."""
    return spec.fabric.technology.startswith("roce")


def bgp_session_protection(spec: DesignSpec) -> list[str]:
    """network.bgp_session_protection (list): what protects the fabric's BGP sessions from
    off-link or spoofed peers: "gtsm" (RFC 5082 TTL security), "md5" (RFC 2385 TCP MD5
    signatures); empty when nothing does or there is no BGP underlay."""
    if not bgp_underlay(spec):
        return []
    network = spec.network
    return (["gtsm"] if network.bgp_gtsm else []) + (
        [network.bgp_authentication] if network.bgp_authentication != "none" else []
    )


# --- reliability --------------------------------------------------------------------------


def control_plane_single_failure_domain(spec: DesignSpec) -> bool:
    """reliability.control_plane_single_failure_domain (bool): one failure (a power path, a
    room) takes down the control plane (scheduler, identity, storage metadata) together with
    the cluster. The spec does not place the control plane, so the fallback is conservative:
    true when the facility has a single power path (power_redundancy = N). The reliability
    engine replaces this with its failure-domain analysis."""
    return spec.facility.power_redundancy == "N"


# --- regions ------------------------------------------------------------------------------


def residency_violations(spec: DesignSpec) -> list[dict[str, Any]]:
    """regions.residency_violations (list): one entry per copy of a dataset held at a site
    outside the dataset's residency: {dataset, site, site_jurisdiction, allowed}. A site in
    an EU member state ("DE") satisfies residency ["EU"]; a site coded "EU" does not satisfy
    a single-country residency such as ["DE"] (it may be in another member state)."""
    sites = {site.id: site for site in spec.regions.sites}
    violations: list[dict[str, Any]] = []
    for dataset in spec.regions.datasets:
        if dataset.residency == "any":
            continue
        for site_id in dataset.stored_at:
            site = sites[site_id]
            if not _allowed(site.jurisdiction, dataset.residency):
                violations.append(
                    {
                        "dataset": dataset.name,
                        "site": site.id,
                        "site_jurisdiction": site.jurisdiction,
                        "allowed": list(dataset.residency),
                    }
                )
    return violations


def restricted_datasets_in_cross_border_training(spec: DesignSpec) -> list[dict[str, Any]]:
    """regions.restricted_datasets_in_cross_border_training (list): datasets with a residency
    rule in a design whose cross-site training (synchronous, hierarchical or async-averaging)
    sends model state to GPU sites outside that residency: {dataset, strategy,
    outside_jurisdictions}. Weights and gradients trained on the data leave the jurisdiction
    even when the raw data does not. Federated designs are not listed."""
    strategy = spec.regions.cross_region_strategy
    if strategy not in _STATE_SHARING_STRATEGIES:
        return []
    gpu_sites = [site for site in spec.regions.sites if site.gpu_share > 0]
    found: list[dict[str, Any]] = []
    for dataset in spec.regions.datasets:
        if dataset.residency == "any":
            continue
        outside = sorted(
            {s.jurisdiction for s in gpu_sites if not _allowed(s.jurisdiction, dataset.residency)}
        )
        if outside:
            found.append(
                {"dataset": dataset.name, "strategy": strategy, "outside_jurisdictions": outside}
            )
    return found


def multi_jurisdiction(spec: DesignSpec) -> bool:
    """regions.multi_jurisdiction (bool): the sites span more than one legal regime (EU
    member states count as one regime, "EU")."""
    return len({regime_of(site.jurisdiction) for site in spec.regions.sites}) > 1


# --- storage and compute ------------------------------------------------------------------


def tolerated_device_failures(spec: DesignSpec) -> int:
    """storage.tolerated_device_failures (int): concurrent device / server failures the
    shared tiers survive without data loss: replicas - 1 for replication, parity fragments m
    for erasure coding."""
    durability = spec.storage.durability
    if durability.scheme == "replication":
        return durability.replicas - 1
    return durability.ec_parity_m


def gpu_confidential_computing_capable(spec: DesignSpec) -> bool | None:
    """compute.gpu_confidential_computing_capable (bool or null): the GPU supports
    confidential computing (a GPU TEE with attestation), per confidential_computing_gpus.yaml;
    null when unknown (a custom GPU or a SKU the list does not name)."""
    if spec.compute.custom_gpu is not None or spec.compute.gpu_sku is None:
        return None
    table = _confidential_computing_table()
    if spec.compute.gpu_sku in table["capable"]:
        return True
    if spec.compute.gpu_sku in table["not_capable"]:
        return False
    return None


@functools.cache
def _confidential_computing_table() -> dict[str, frozenset[str]]:
    text = resources.files(__package__).joinpath("confidential_computing_gpus.yaml").read_text()
    data = yaml.safe_load(text)
    return {
        "capable": frozenset(item["id"] for item in data["capable"]),
        "not_capable": frozenset(item["id"] for item in data["not_capable"]),
    }


def _fact(name: str, kind: str, derive: Callable[[DesignSpec], Any]) -> Fact:
    doc = " ".join((derive.__doc__ or "").split())
    return Fact(name=name, kind=kind, description=doc, derive=derive)


FACTS: dict[str, Fact] = {
    fact.name: fact
    for fact in (
        _fact("fabric.management_shares_compute_fabric", "bool", management_shares_compute_fabric),
        _fact("fabric.frontend_on_compute_fabric", "bool", frontend_on_compute_fabric),
        _fact("fabric.storage_on_compute_fabric", "bool", storage_on_compute_fabric),
        _fact("fabric.rdma_on_shared_fabric", "bool", rdma_on_shared_fabric),
        _fact("network.tenant_segments", "int", tenant_segments),
        _fact("network.bgp_underlay", "bool", bgp_underlay),
        _fact("network.bgp_session_protection", "list", bgp_session_protection),
        _fact(
            "reliability.control_plane_single_failure_domain",
            "bool",
            control_plane_single_failure_domain,
        ),
        _fact("regions.residency_violations", "list", residency_violations),
        _fact(
            "regions.restricted_datasets_in_cross_border_training",
            "list",
            restricted_datasets_in_cross_border_training,
        ),
        _fact("regions.multi_jurisdiction", "bool", multi_jurisdiction),
        _fact("storage.tolerated_device_failures", "int", tolerated_device_failures),
        _fact(
            "compute.gpu_confidential_computing_capable",
            "bool_or_null",
            gpu_confidential_computing_capable,
        ),
    )
}


def derive_facts(spec: DesignSpec) -> dict[str, Any]:
    """Every fact in FACTS computed from the spec alone (the fallback for other engines)."""
    return {name: fact.derive(spec) for name, fact in FACTS.items()}


def resolve_facts(
    spec: DesignSpec, provided: dict[str, Any] | None
) -> tuple[dict[str, Any], dict[str, str]]:
    """Derived facts with `provided` ones laid over them, and where each value came from
    ("derived" or "provided"). An unknown name or a value of the wrong type is a ValueError
    naming the fact, so a typo in the wiring cannot silently fall back to the derived value."""
    values = derive_facts(spec)
    sources = dict.fromkeys(values, "derived")
    for name, value in (provided or {}).items():
        fact = FACTS.get(name)
        if fact is None:
            raise ValueError(f"unknown security fact '{name}'; allowed: {', '.join(FACTS)}")
        if not fact.accepts(value):
            raise ValueError(
                f"security fact '{name}' must be {fact.kind}, got {type(value).__name__}"
            )
        values[name] = value
        sources[name] = "provided"
    return values, sources
