"""Where a service listens: whether an address is reachable from this machine only.

Both services (``webmd serve``, ``webmd mcp --http``) bind to loopback by default and
ask for a bearer token before they bind to anything else.
"""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """True when ``host`` names only this machine (127.0.0.0/8, ::1 or localhost)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name other than localhost may resolve anywhere
