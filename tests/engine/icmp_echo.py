"""One ICMP echo from SOURCE to TARGET, run inside a network namespace (no `ping` binary
needed): exits 0 when the reply comes back within two seconds. Usage: icmp_echo.py SRC DST"""

import os
import select
import socket
import struct
import sys


def checksum(data: bytes) -> int:
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    total = (total >> 16) + (total & 0xFFFF)
    return ~(total + (total >> 16)) & 0xFFFF


def echo(source: str, target: str, timeout_s: float = 2.0) -> bool:
    ident = os.getpid() & 0xFFFF
    header = struct.pack("!BBHHH", 8, 0, 0, ident, 1)
    payload = b"cluster-studio"
    packet = struct.pack("!BBHHH", 8, 0, checksum(header + payload), ident, 1) + payload
    with socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP) as sock:
        if source:
            sock.bind((source, 0))
        sock.sendto(packet, (target, 0))
        while select.select([sock], [], [], timeout_s)[0]:
            reply, (sender, _) = sock.recvfrom(2048)
            icmp = reply[(reply[0] & 0x0F) * 4 :]
            kind, _, _, reply_id, _ = struct.unpack("!BBHHH", icmp[:8])
            if kind == 0 and reply_id == ident and sender == target:
                return True
    return False


if __name__ == "__main__":
    source = sys.argv[1] if sys.argv[1] != "-" else ""
    sys.exit(0 if echo(source, sys.argv[2]) else 1)
