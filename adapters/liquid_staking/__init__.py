"""Liquid staking and restaking tokens on Ethereum: ether.fi, Rocket Pool, Renzo and Kelp (one adapter,
a module each for positions, pools.py for each token as a pool)."""

from __future__ import annotations

from adapters.liquid_staking import etherfi, flows, kelp, pools, renzo, rocketpool
from adapters.liquid_staking.contracts import withdraw_requests
from adapters.liquid_staking.section import ETHERFI, KELP, RENZO, ROCKETPOOL
from adapters.protocol import Protocol

PROTOCOLS = (
    Protocol(
        name="etherfi",
        section=ETHERFI,
        deployed=lambda section: section.start_block,
        fetch=etherfi.fetch,
        details=pools.etherfi_details,
        streams=lambda etherfi: (withdraw_requests(etherfi),),
        flows=flows.flows,
        probe=etherfi.probes,
    ),
    Protocol(
        name="rocketpool",
        section=ROCKETPOOL,
        deployed=lambda section: section.start_block,
        fetch=rocketpool.fetch,
        details=pools.rocketpool_details,
        flows=flows.flows,
        probe=rocketpool.probes,
    ),
    Protocol(
        name="renzo",
        section=RENZO,
        deployed=lambda section: section.start_block,
        fetch=renzo.fetch,
        details=pools.renzo_details,
        flows=flows.flows,
    ),
    Protocol(
        name="kelp",
        section=KELP,
        deployed=lambda section: section.start_block,
        fetch=kelp.fetch,
        details=pools.kelp_details,
        flows=flows.flows,
    ),
)
