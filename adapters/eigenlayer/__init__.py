"""EigenLayer: restaked shares, delegation, queued withdrawals and EigenPods (positions.py)."""
