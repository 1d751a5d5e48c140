"""Curve: LP positions in the pools of Curve's factories and older registries, gauge stakes and their claimables."""

from __future__ import annotations

from adapters.curve import positions
from adapters.curve.section import CURVE
from adapters.protocol import Protocol

PROTOCOLS = (Protocol(name="curve", section=CURVE, deployed=lambda curve: curve.start_block, fetch=positions.fetch),)
