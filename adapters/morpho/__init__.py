"""Morpho: Blue markets, MetaMorpho (V1) and Vault V2 positions (positions.py) and the same as pools
(pools.py), side by side on contracts.py (functions, events, the index stream), market.py (market
state, accrual, shared reads), vaults.py (vault rates, V2 adapters) and adaptive_curve_irm.py."""
