"""The WAN between sites as a graph: widest paths between sites and the ring a cross-site
all-reduce runs over."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Path:
    sites: tuple[str, ...]
    bandwidth_gbps: float  # narrowest link on the path
    rtt_ms: float  # sum over the links
    egress_usd_per_gb: float  # paid at every site the data leaves
    links: tuple[int, ...]  # indices into regions.wan_links


def _adjacency(links) -> dict[str, list[tuple[str, int]]]:
    graph: dict[str, list[tuple[str, int]]] = {}
    for index, link in enumerate(links):
        graph.setdefault(link.from_site, []).append((link.to_site, index))
        graph.setdefault(link.to_site, []).append((link.from_site, index))
    return graph


def widest_path(links, start: str, goal: str) -> Path | None:
    """The path with the largest bottleneck bandwidth (ties: lowest RTT); None if the sites
    are not connected. Site graphs are small (<= 64 sites), so a label-setting search over
    (bandwidth, -rtt) is plenty."""
    if start == goal:
        return Path((start,), float("inf"), 0.0, 0.0, ())
    graph = _adjacency(links)
    best: dict[str, tuple[float, float, tuple[str, ...], tuple[int, ...], float]] = {
        start: (float("inf"), 0.0, (start,), (), 0.0)
    }
    frontier = [start]
    done: set[str] = set()
    while frontier:
        frontier.sort(key=lambda s: (best[s][0], -best[s][1]))
        site = frontier.pop()
        if site == goal:
            bw, rtt, sites, used, price = best[site]
            return Path(sites, bw, rtt, price, used)
        done.add(site)
        bw, rtt, sites, used, price = best[site]
        for neighbour, index in graph.get(site, []):
            if neighbour in done:
                continue
            link = links[index]
            candidate = (
                min(bw, link.bandwidth_gbps),
                rtt + link.rtt_ms,
                (*sites, neighbour),
                (*used, index),
                price + link.egress_usd_per_gb,
            )
            current = best.get(neighbour)
            if current is None or (candidate[0], -candidate[1]) > (current[0], -current[1]):
                best[neighbour] = candidate
                if neighbour not in frontier:
                    frontier.append(neighbour)
    return None


def ring(links, site_ids: list[str]) -> list[Path] | None:
    """Hops of a ring over `site_ids` in the given order (one hop for two sites); None if two
    consecutive sites have no path."""
    if len(site_ids) < 2:
        return []
    pairs = list(zip(site_ids, site_ids[1:] + site_ids[:1], strict=True))
    if len(site_ids) == 2:
        pairs = pairs[:1]
    hops = []
    for a, b in pairs:
        path = widest_path(links, a, b)
        if path is None:
            return None
        hops.append(path)
    return hops
