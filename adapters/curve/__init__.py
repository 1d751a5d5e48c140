"""Curve: LP positions in the pools of Curve's factories and older registries, gauge stakes and their claimables."""
