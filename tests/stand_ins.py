"""Test fetch functions that stand in for protocol adapters in the HTTP/GraphQL tests.

They are registered under their own names, all typed as MorphoWalletPositions, so the tests
exercise the real schema, resolver and error mapping without any chain access.
"""

from __future__ import annotations

import asyncio
from typing import Any

from adapters.context import FetchContext
from adapters.legs import SUPPLIED, VAULT, leg, position
from chain import erc20
from errors import NetworkError, ProtocolError
from protocols import Protocol

CHAINS = frozenset({1, 8453})
TEST_TOKEN = {"address": "0x" + "22" * 20, "symbol": "TST", "name": "Test", "decimals": 6}


def vault_position(address: str, chain_id: int) -> dict[str, Any]:
    """A position whose every figure is a function of the input, so tests can tell them apart."""
    return {
        "blockNumber": 1000 + chain_id,
        "blockHash": "0x" + f"{1000 + chain_id:064x}",
        "blockTimestamp": 1_700_000_000 + chain_id,
        "vaultV1Positions": [],
        "vaultV2Positions": [
            {
                "type": "morpho-vault-v2",
                "vaultAddress": "0x" + "11" * 20,
                "vaultName": f"Vault for {address[:10]} on {chain_id}",
                "vaultSymbol": "vTEST",
                "asset": TEST_TOKEN,
                "shares": str(int(address[2:10], 16)),
                "assets": "1250000000",
                "assetsUsd": 1250.0,
                "apy": 0.0685,
                **position(
                    "MorphoVaultV2Position",
                    "0x" + "11" * 20,
                    VAULT,
                    "vTEST",
                    [leg(SUPPLIED, "0x" + "11" * 20, TEST_TOKEN, 1_250_000_000, 1250.0, "0x" + "33" * 20)],
                ),
            }
        ],
        "marketPositions": [],
    }


def chain_balances(tokens: list[str], chain_id: int) -> Protocol:
    """A stand-in that really reads the chain: the wallet's balance of each token, in one round."""

    async def fetch(ctx: FetchContext[Any], address: str) -> dict[str, Any]:
        reader = ctx.reader()
        balances = await asyncio.gather(*(reader.call(t, erc20.BALANCE_OF, address) for t in tokens))
        return {
            "vaultV1Positions": [
                {
                    "type": "morpho-vault-v1",
                    "vaultAddress": token,
                    "vaultName": "balance",
                    "vaultSymbol": "BAL",
                    "shares": str(balance),
                    "assets": str(balance),
                    "asset": {"address": token, "symbol": "T", "name": "T", "decimals": 18},
                    "assetsUsd": None,
                    "apy": None,
                    **position(
                        "MorphoVaultV1Position",
                        token,
                        VAULT,
                        "BAL",
                        [
                            leg(
                                SUPPLIED,
                                token,
                                {"address": token, "symbol": "T", "name": "T", "decimals": 18},
                                balance,
                                None,
                                None,
                            )
                        ],
                    ),
                }
                for token, (balance,) in zip(tokens, balances)
            ],
            "vaultV2Positions": [],
            "marketPositions": [],
        }

    return Protocol(
        section=lambda chain: chain,
        name="balances",
        type_name="MorphoWalletPositions",
        chains=frozenset({chain_id}),
        fetch=fetch,
        kept=False,
    )


class StandIns:
    """A registry of stand-ins plus a log of the fetches they received."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, str]] = []
        self.contexts: list[FetchContext[Any]] = []
        self.rendezvous_started = 0
        self.rendezvous_ready = asyncio.Event()
        self.rendezvous_size = 2

    def registry(self) -> dict[str, Protocol]:
        fetches = {
            "morpho": self.ok,
            "slow": self.slow,
            "netfail": self.network_failure,
            "revert": self.revert,
            "buggy": self.buggy,
            "badshape": self.bad_shape,
            "badfloat": self.bad_float,
            "rendezvous": self.rendezvous,
        }
        return {
            name: Protocol(
                section=lambda chain: chain,
                name=name,
                type_name="MorphoWalletPositions",
                chains=CHAINS,
                fetch=fetch,
                kept=False,
            )
            for name, fetch in fetches.items()
        }

    async def ok(self, ctx: FetchContext[Any], address: str) -> dict[str, Any]:
        self.calls.append(("morpho", ctx.chain_id, address))
        self.contexts.append(ctx)
        await asyncio.sleep(0.01)
        return vault_position(address, ctx.chain_id)

    async def slow(self, ctx: FetchContext[Any], address: str) -> dict[str, Any]:
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

    async def network_failure(self, ctx: FetchContext[Any], address: str) -> dict[str, Any]:
        raise NetworkError("The chain's RPC endpoint could not be reached.")

    async def revert(self, ctx: FetchContext[Any], address: str) -> dict[str, Any]:
        raise ProtocolError("Vault 0x11 reverted on convertToAssets.")

    async def buggy(self, ctx: FetchContext[Any], address: str) -> dict[str, Any]:
        raise RuntimeError("boom at /srv/secret/path via https://rpc.example/secret-token")

    async def bad_shape(self, ctx: FetchContext[Any], address: str) -> Any:
        return ["not", "a", "dict"]

    async def bad_float(self, ctx: FetchContext[Any], address: str) -> dict[str, Any]:
        position = vault_position(address, ctx.chain_id)
        position["vaultV2Positions"][0]["apy"] = float("nan")
        return position

    async def rendezvous(self, ctx: FetchContext[Any], address: str) -> dict[str, Any]:
        """Completes only once `rendezvous_size` fetches are running at the same time."""
        self.rendezvous_started += 1
        if self.rendezvous_started >= self.rendezvous_size:
            self.rendezvous_ready.set()
        await self.rendezvous_ready.wait()
        return vault_position(address, ctx.chain_id)
