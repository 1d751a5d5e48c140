"""Compound v3 (Comet): supplies, borrows and collateral (positions.py), a Comet as a pool (pools.py), a
series' flows (flows.py), all on its ground floor: the contracts (contracts.py) and a Comet's rates
and prices (market.py)."""
