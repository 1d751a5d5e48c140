"""Liquid staking and restaking tokens on Ethereum: ether.fi, Rocket Pool, Renzo and Kelp (one adapter,
a module each)."""
