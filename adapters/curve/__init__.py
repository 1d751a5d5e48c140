"""Curve: LP positions in the pools of Curve's factories, gauge stakes and their claimables."""
