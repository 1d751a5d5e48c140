"""Compound v3 (Comet): supplies, borrows and collateral (positions.py), a Comet as a pool (pools.py)."""
