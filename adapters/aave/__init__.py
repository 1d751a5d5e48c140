"""Aave v3: the views it calls (contracts.py) and what both queries read and compute alike of a
market (market.py); the account and its reserves (positions.py) beside a market with its reserves
as a pool (pools.py); whether a supply counts as collateral, as the Pool decides it by version
(collateral.py), the account's risk (risk.py) and its incentives (rewards.py)."""
