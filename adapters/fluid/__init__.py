"""Fluid: fTokens and vault NFTs (positions.py), an fToken or a vault as a pool (pools.py), both on its ground
floor: the resolvers' and vaults' contracts (contracts.py) and the figures both give alike (figures.py)."""
