"""Pendle: PT, YT, LP and SY positions (positions.py), a market as a pool (pools.py), both on its ground
floor: the contracts and the index stream that finds them (contracts.py), a market's state (market.py)."""
