"""Lido: stETH, wstETH and withdrawal requests (positions.py)."""

from __future__ import annotations

from adapters.lido import flows, positions
from adapters.protocol import Protocol

PROTOCOLS = (Protocol(name="lido", section=lambda chain: chain.lido, fetch=positions.fetch, flows=flows.flows),)
