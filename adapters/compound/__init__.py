"""Compound v3 (Comet): supplies, borrows and collateral (positions.py), a Comet as a pool (pools.py), both on
its ground floor: the contracts (contracts.py) and a Comet's rates and prices (market.py)."""
