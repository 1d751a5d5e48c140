"""Balancer v2: pool tokens (BPT) and gauge stakes (positions.py); shares.py the share math Aura reuses."""
