"""Uniswap: v3 liquidity positions (positions.py), pools (pools.py), and the contracts' integer math (tick_math.py)."""
