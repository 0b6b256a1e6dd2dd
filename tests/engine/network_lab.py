"""A reduced fabric booted on this machine: one network namespace per switch and host, veth
pairs per link (iproute2), Debian's FRR (zebra, bgpd, bfdd) per switch namespace running the
frr.conf the network engine rendered. All traffic stays inside the namespaces."""

from __future__ import annotations

import functools
import ipaddress
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from models_engine.engines.network import pod_summaries
from models_engine.engines.network.addressing import AddressPlan
from models_engine.engines.network.archive import l2_devices, l3_devices
from models_engine.engines.network.render import RenderPlan, frr_config
from models_engine.engines.network.routing import AsnPlan
from models_engine.engines.network.tenancy import tenant_rows
from models_engine.engines.network.topology import Device, SiteTopology
from models_engine.spec.network import AddressPools, Tenant

FRR_DIR = "/usr/lib/frr"
ECHO = os.path.join(os.path.dirname(__file__), "icmp_echo.py")
DAEMONS = ("zebra", "bfdd", "bgpd")  # zebra first: the others connect to its socket


def reduced_plan(leaves=4, spines=2, hosts_per_leaf=2, tenants=("red", "blue")) -> RenderPlan:
    topo = SiteTopology(
        site_id="lab",
        technology="roce-400g",
        leaves=leaves,
        spines=spines,
        cores=0,
        pods=1,
        leaf_uplinks=spines,
        spine_uplinks=0,
        hosts_per_leaf=hosts_per_leaf,
        rails=None,
        nodes=leaves * hosts_per_leaf,
        link_speed_gbps=400.0,
    )
    offsets = dict.fromkeys(("loopback", "p2p", "gpu", "tenant", "management", "storage"), 0)
    base = 4_200_000_000
    addresses = AddressPlan(AddressPools(), topo, offsets, len(tenants))
    return RenderPlan(
        topo=topo,
        addresses=addresses,
        asns=AsnPlan("per-leaf", base, topo),
        tenants=tenant_rows([Tenant(name=t) for t in tenants], True, base),
        ecmp_max_paths=64,
        bfd_interval_ms=300,
        bfd_multiplier=3,
        keepalive_s=3,
        hold_s=9,
        switch_mtu=9216,
        summaries=tuple(pod_summaries(topo, addresses)),  # network.route_summarisation = pod
        bgp_gtsm=True,
    )


def missing_prerequisite() -> str | None:
    if os.geteuid() != 0:
        return "needs root (network namespaces, veth pairs)"
    if not all(os.access(f"{FRR_DIR}/{d}", os.X_OK) for d in DAEMONS):
        return f"Debian's frr is not installed ({FRR_DIR}/bgpd missing; bin/test installs it)"
    if shutil.which("ip") is None or shutil.which("vtysh") is None:
        return "iproute2 or vtysh missing"
    return None


def sh(*args: str, check: bool = True) -> str:
    done = subprocess.run(args, capture_output=True, text=True, timeout=30)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


@dataclass
class Lab:
    plan: RenderPlan
    prefix: str = field(default_factory=lambda: f"cs{os.getpid() % 100000}")
    root: str = field(default_factory=lambda: tempfile.mkdtemp(prefix="cs-frr-"))
    namespaces: list[str] = field(default_factory=list)
    veths: int = 0

    def ns(self, name: str) -> str:
        return f"{self.prefix}-{name}"

    def run(self, name: str, *args: str, check: bool = True) -> str:
        return sh("ip", "netns", "exec", self.ns(name), *args, check=check)

    def reaches(self, name: str, source: str, target: str) -> bool:
        """One ICMP echo from `source` (an address of namespace `name`, "-" for any)."""
        done = subprocess.run(
            ["ip", "netns", "exec", self.ns(name), sys.executable, ECHO, source, target],
            capture_output=True,
            timeout=10,
        )
        return done.returncode == 0

    def vtysh(self, device: str, command: str) -> dict:
        out = self.run(device, "vtysh", "--vty_socket", self.dir(device), "-c", command)
        return json.loads(out or "{}")

    def dir(self, device: str) -> str:
        return os.path.join(self.root, device)

    # --- boot ---------------------------------------------------------------------------

    @functools.cached_property
    def vrf_support(self) -> bool:
        """Whether this kernel has VRF devices (CONFIG_NET_VRF): tenant VRFs, L3 VNIs and
        type-5 routes need them; some VM kernels leave them out."""
        probe = f"{self.prefix}-vrfprobe"
        sh("ip", "netns", "add", probe)
        try:
            done = subprocess.run(
                [
                    "ip",
                    "netns",
                    "exec",
                    probe,
                    "ip",
                    "link",
                    "add",
                    "v",
                    "type",
                    "vrf",
                    "table",
                    "9",
                ],
                capture_output=True,
                timeout=10,
            )
            return done.returncode == 0
        finally:
            sh("ip", "netns", "del", probe, check=False)

    def boot(self) -> None:
        os.chmod(self.root, 0o777)
        for device in self.plan.topo.devices():
            self._namespace(device.name)
        for link in self.plan.topo.all_links():
            self._veth(
                link.lower.name,
                f"Ethernet{link.lower_port}",
                link.upper.name,
                f"Ethernet{link.upper_port}",
            )
        for i in range(self.plan.topo.leaves):
            self._leaf(self.plan.topo.leaf(i))
        for device in self.plan.topo.devices():
            self._start_frr(device)

    def _namespace(self, name: str) -> None:
        sh("ip", "netns", "add", self.ns(name))
        self.namespaces.append(name)
        self.run(name, "ip", "link", "set", "lo", "up")
        self.run(name, "sysctl", "-qw", "net.ipv4.ip_forward=1")

    def _veth(self, a: str, a_if: str, b: str, b_if: str) -> None:
        self.veths += 1
        tmp_a, tmp_b = f"{self.prefix}v{self.veths}a", f"{self.prefix}v{self.veths}b"
        sh("ip", "link", "add", tmp_a, "type", "veth", "peer", "name", tmp_b)
        for tmp, ns, name in ((tmp_a, a, a_if), (tmp_b, b, b_if)):
            sh("ip", "link", "set", tmp, "netns", self.ns(ns))
            self.run(ns, "ip", "link", "set", tmp, "name", name, "mtu", "9216")
            self.run(ns, "ip", "link", "set", name, "up")

    def _leaf(self, leaf: Device) -> None:
        """Leaf data plane FRR does not create: the GPU subnet bridge with its hosts, and per
        tenant the symmetric-IRB devices the archive README lists (VRF, L2 and L3 VNI VXLAN
        devices and their bridges, sourced at the loopback); FRR puts the anycast gateway
        address on the tenant's VLAN bridge from its frr.conf."""
        addresses = self.plan.addresses
        loopback = str(addresses.loopback(leaf))
        self.run(leaf.name, "ip", "addr", "add", f"{loopback}/32", "dev", "lo")
        gateway = f"{addresses.gateway(leaf)}/{addresses.gpu_prefix}"
        self.run(leaf.name, "ip", "link", "add", "Vlan10", "type", "bridge")
        self.run(leaf.name, "ip", "addr", "add", gateway, "dev", "Vlan10")
        self.run(leaf.name, "ip", "link", "set", "Vlan10", "up")
        for h in range(self.plan.topo.hosts_per_leaf):
            self._host(leaf, h)
        for number, tenant in self.plan.tenant_numbered():  # the archive README's lines
            devices = l2_devices(tenant, loopback)
            if self.vrf_support:
                devices += l3_devices(number, tenant, loopback)
            for argv in devices:
                self.run(leaf.name, *argv)

    def _host(self, leaf: Device, h: int) -> None:
        host = f"{leaf.name}h{h + 1}"
        self._namespace(host)
        self._veth(leaf.name, f"Ethernet{h}", host, "eth0")
        self.run(leaf.name, "ip", "link", "set", f"Ethernet{h}", "master", "Vlan10")
        gateway = self.plan.addresses.gateway(leaf)
        address = ipaddress.IPv4Address(int(gateway) + 1 + h)
        self.run(
            host, "ip", "addr", "add", f"{address}/{self.plan.addresses.gpu_prefix}", "dev", "eth0"
        )
        self.run(host, "ip", "route", "add", "default", "via", str(gateway))

    def _start_frr(self, device: Device) -> None:
        directory = self.dir(device.name)
        os.makedirs(directory)
        os.chmod(directory, 0o777)
        conf = os.path.join(directory, "frr.conf")
        with open(conf, "w") as handle:
            handle.write(frr_config(self.plan, device))
        for daemon in DAEMONS:
            self.run(
                device.name,
                f"{FRR_DIR}/{daemon}",
                "-d",
                "-f",
                conf,
                "-i",
                os.path.join(directory, f"{daemon}.pid"),
                "-z",
                os.path.join(directory, "zserv.api"),
                "--vty_socket",
                directory,
                "-u",
                "root",
                "-g",
                "root",
            )
            if daemon == "zebra":
                time.sleep(0.5)

    # --- tear down --------------------------------------------------------------------------

    def teardown(self) -> None:
        for device in self.plan.topo.devices():
            for daemon in reversed(DAEMONS):
                self._kill(os.path.join(self.dir(device.name), f"{daemon}.pid"))
        for name in self.namespaces:
            sh("ip", "netns", "del", self.ns(name), check=False)
        shutil.rmtree(self.root, ignore_errors=True)

    @staticmethod
    def _kill(pid_file: str) -> None:
        try:
            with open(pid_file) as handle:
                pid = int(handle.read().strip())
        except (OSError, ValueError):
            return
        try:
            os.kill(pid, 15)
        except ProcessLookupError:
            return
        for _ in range(50):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)
        os.kill(pid, 9)
