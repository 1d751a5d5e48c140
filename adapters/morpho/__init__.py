"""Morpho: Blue markets, MetaMorpho (V1) and Vault V2 positions (positions.py), markets and vaults as pools
(pools.py), and the AdaptiveCurveIrm rate math (adaptive_curve_irm.py)."""
