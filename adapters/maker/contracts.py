"""Maker (Sky) core as the adapter reads it: the ChainLog's names, the views of the contracts it
names (the ABIs of Maker's dai-plugin-mcd), and Maker's fixed-point arithmetic.

Every contract is the ChainLog's answer at the block (`getAddress`), so a contract replaced by a
spell is read where it was then; LOCKSTAKE_ENGINE is absent before Sky deployed it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from adapters.fixed_point import RAY, rpow
from chain import ChainReader
from chain.abi import Function
from errors import ProtocolError

GET_ADDRESS = Function("getAddress(bytes32)", "21f8a721", ("address",))
GET_CDPS_ASC = Function(
    "getCdpsAsc(address,address)", "1ce03f38", ("uint256[] ids", "address[] urns", "bytes32[] ilks")
)
ILK_LIST = Function("list()", "0f560cd7", ("bytes32[]",))
ILK_GEM = Function("gem(bytes32)", "41f0b723", ("address",))
VAT_URNS = Function("urns(bytes32,address)", "2424be5c", ("uint256 ink", "uint256 art"))
VAT_ILKS = Function(
    "ilks(bytes32)",
    "d9638d36",
    ("uint256 Art", "uint256 rate", "uint256 spot", "uint256 line", "uint256 dust"),
)
SPOT_ILKS = Function("ilks(bytes32)", "d9638d36", ("address pip", "uint256 mat"))
PAR = Function("par()", "495d32cb", ("uint256",))
JUG_ILKS = Function("ilks(bytes32)", "d9638d36", ("uint256 duty", "uint256 rho"))
BASE = Function("base()", "5001f3b5", ("uint256",))
ZZZ = Function("zzz()", "a4dff0a2", ("uint64",))
"""An OSM's last update (Unix seconds); a plain feed has none."""
OWNER_URNS_COUNT = Function("ownerUrnsCount(address)", "a1c03731", ("uint256",))
OWNER_URNS = Function("ownerUrns(address,uint256)", "d9f06192", ("address",))
ENGINE_ILK = Function("ilk()", "c5ce281e", ("bytes32",))
ENGINE_USDS = Function("usds()", "4cf282fb", ("address",))

KEYS = ("CDP_MANAGER", "GET_CDPS", "MCD_VAT", "MCD_SPOT", "MCD_JUG", "ILK_REGISTRY", "MCD_DAI", "LOCKSTAKE_ENGINE")
"""The ChainLog keys read, in the order `Core` takes them."""
WAD = 10**18
LABEL = "Maker ChainLog"


@dataclass(frozen=True)
class Core:
    """The contracts the ChainLog names at the block; `engine` None before Sky's staking engine."""

    manager: str
    get_cdps: str
    vat: str
    spot: str
    jug: str
    ilk_registry: str
    dai: str
    engine: str | None

    @property
    def first_read(self) -> tuple[str, ...]:
        """The contracts an input reads before it knows its vaults: GetCdps, the IlkRegistry, the
        Vat, the staking engine."""
        return (self.get_cdps, self.ilk_registry, self.vat, *((self.engine,) if self.engine else ()))


def key(name: str) -> bytes:
    """A ChainLog key: the name as bytes32, right-padded with zero bytes."""
    return name.encode().ljust(32, b"\0")


def ilk_name(ilk: bytes) -> str:
    return ilk.rstrip(b"\0").decode("utf-8", "replace")


async def core(reader: ChainReader, chain_log: str) -> Core:
    """The ChainLog's contracts at the block; a missing key reverts ("dss-chain-log/invalid-key"),
    which only LOCKSTAKE_ENGINE may (before its deployment)."""
    named, engine = await asyncio.gather(
        asyncio.gather(*(reader.call(chain_log, GET_ADDRESS, key(name), label=LABEL) for name in KEYS[:-1])),
        _optional(reader, chain_log, KEYS[-1]),
    )
    manager, get_cdps, vat, spot, jug, registry, dai = (str(address).lower() for (address,) in named)
    return Core(manager, get_cdps, vat, spot, jug, registry, dai, engine)


async def _optional(reader: ChainReader, chain_log: str, name: str) -> str | None:
    try:
        (address,) = await reader.call(chain_log, GET_ADDRESS, key(name), label=LABEL)
    except ProtocolError:
        return None
    return str(address).lower()


def dripped(rate: int, duty: int, base: int, rho: int, now: int) -> int:
    """The Vat rate Jug's `drip` would set at `now`: rmul(rpow(base + duty, now - rho), rate)."""
    return rpow(base + duty, max(0, now - rho)) * rate // RAY
