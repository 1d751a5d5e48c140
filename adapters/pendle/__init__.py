"""Pendle: PT, YT, LP and SY positions and the index stream that finds them (positions.py), a market as a pool
(pools.py)."""
