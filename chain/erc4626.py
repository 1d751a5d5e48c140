"""ERC-4626 views that vault readers share (adapters/morpho/, adapters/vault_style/)."""

from __future__ import annotations

from chain.abi import Function

ASSET = Function("asset()", "38d52e0f", ("address",), immutable=True)
CONVERT_TO_ASSETS = Function("convertToAssets(uint256)", "07a2d13a", ("uint256",))
TOTAL_ASSETS = Function("totalAssets()", "01e1d114", ("uint256",))
