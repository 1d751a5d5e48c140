"""Liquid staking and restaking tokens on Ethereum: ether.fi, Rocket Pool (one adapter, a module each)."""
