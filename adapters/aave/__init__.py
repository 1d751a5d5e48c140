"""Aave v3: the account and its reserves (positions.py), a market with its reserves as a pool (pools.py), and
whether a supply counts as collateral, as the Pool decides it by version (collateral.py)."""
