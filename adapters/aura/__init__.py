"""Aura: Balancer pool tokens deposited through Aura's Booster (positions.py)."""
