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
from chain.abi import Event, Function
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
URN_FARMS = Function("urnFarms(address)", "2a95b45d", ("address",))
FARM_EARNED = Function("earned(address)", "008cc262", ("uint256",))
FARM_REWARDS_TOKEN = Function("rewardsToken()", "d1af0c7d", ("address",), immutable=True)
"""A staking-engine urn's farm (the LockstakeEngine's `urnFarms`) and the farm's views (Sky's
StakingRewards, endgame-toolkit's Synthetix fork)."""

MANAGER_URNS = Function("urns(uint256)", "2726b073", ("address",), immutable=True)
MANAGER_ILKS = Function("ilks(uint256)", "2c2cb9fd", ("bytes32",), immutable=True)
"""A CdpManager vault's urn and ilk, set at its `open`."""


def note(selector: str) -> str:
    """The topic0 of a LogNote (the Vat's own and LibNote's, the CdpManager's): the call's selector,
    left-aligned in the word. The Vat's topics 1-3 are its first three arguments; LibNote's are the
    caller and the first two."""
    return "0x" + selector + "00" * 28


FROB = note("76088703")
"""Vat.frob(ilk, u, v, w, dink, dart): u's ink and art."""
FORK = note("870c616d")
"""Vat.fork(ilk, src, dst, dink, dart): ink and art from src's urn to dst's (the CdpManager's
quit, enter and shift)."""
GRAB = note("7bab3f40")
"""Vat.grab(ilk, u, v, w, dink, dart): a liquidation's (the Dog's bark) or the End's seizure."""
GIVE = note("fcafcc68")
"""CdpManager.give(cdp, dst): the vault to its new owner."""
NEW_CDP = Event("NewCdp(address,address,uint256)", "0xd6be0bc178658a382ff4f91c8c68b542aa6b71685b8fe427966b87745c3ea7a2")
"""NewCdp(usr, own, cdp), all indexed: a vault opened for `own`."""
ENGINE_OPEN = Event(
    "Open(address,uint256,address)", "0xdde6dd354074cad07a2dacbb612a6d2bac55ac537264d73250bf5c76bc15d64d"
)
"""The staking engine's Open(owner, index, urn): owner and index indexed."""
GET_REWARD = Event(
    "GetReward(address,uint256,address,address,uint256)",
    "0xb0787e3944c17543aef2eb910c82d62e9ba80dabf5b15e371b09ac5728839700",
)
"""The staking engine's GetReward(owner, index, farm, to, amt): owner, index and farm indexed."""
SELECT_FARM = Event(
    "SelectFarm(address,uint256,address,uint16)", "0xd434da22811bf2b5c3a8fc79e3d6644a80549c3159b7b28388eace49036f44c3"
)
"""The staking engine's SelectFarm(owner, index, farm, ref): owner, index and farm indexed."""

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
