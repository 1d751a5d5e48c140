"""Fluid: fTokens and vault NFTs (positions.py), an fToken or a vault as a pool (pools.py)."""
