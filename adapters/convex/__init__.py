"""Convex: deposits of Curve LP in Convex's Booster pools and their claimable CRV, CVX and extra rewards."""
