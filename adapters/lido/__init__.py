"""Lido: stETH, wstETH and withdrawal requests (positions.py)."""
