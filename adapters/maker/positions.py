"""Maker (Sky) vaults on Ethereum: the wallet's vaults, read on-chain at the pinned block.

How each figure is derived (docs/protocols/maker.md has the long form). Every contract is the
ChainLog's `getAddress` at the block (adapters/maker/contracts.py).

- Vaults: the CdpManager's the wallet owns, `GetCdps.getCdpsAsc(CDP_MANAGER, wallet)` (ids, urns,
  ilks); urns the wallet owns directly in the Vat, `Vat.urns(ilk, wallet)` for every ilk of
  `IlkRegistry.list()`; Sky's staking engine urns, `LockstakeEngine.ownerUrns(wallet, i)` for
  i < `ownerUrnsCount(wallet)`, of its `ilk()`. A vault is listed when it locks collateral or
  owes debt. A DSProxy's vaults are its own entry (adapters/accounts/).
- `collateral` = ink, `normalizedDebt` = art (`Vat.urns`), both in the Vat's 18 decimals.
- `debt` = art x rate' / 1e27 rounded up (what repaying it all takes), rate' the Vat's rate as
  `Jug.drip` would set it at the block's time: rmul(rpow(base + duty, now - rho), rate), Jug's
  own rounding (`Jug.base`, `Jug.ilks`, `Vat.ilks`). DAI for the CdpManager's vaults and the
  Vat's urns, USDS for the staking engine's.
- Price of one collateral unit: the Spotter's, spot x mat x par / 1e81 (`Vat.ilks` spot =
  price / par / mat, `Spotter.ilks` mat, `Spotter.par`): the OSM price the Spotter last poked.
  USD figures: collateral x that price; debt x par (DAI is valued at its target price, as the
  Vat's check does).
- `stabilityFeeApy` = ((base + duty) / 1e27)^31,536,000 - 1; `liquidationRatio` = mat / 1e27.
- Farm (staking-engine urns): the engine's `urnFarms(urn)`, where it names one, the farm's
  `rewardsToken()` and `earned(urn)` (Sky's StakingRewards): a REWARD leg, USD through the token's
  feed.
- `risk`: Dog's check, `bark` once ink x spot < art x rate' (adapters/risk.py): threshold 1 / mat,
  liquidation price = debt x mat x par / ink. The oracle is the ilk's pip (an OSM), its age
  from `zzz()` where it has one.

All reads go out at once in MakerLens (lenses/, chain/lens.py), the farms' and their feeds' too.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from adapters.context import FetchContext
from adapters.fixed_point import RAY
from adapters.legs import COLLATERAL, DEBT, LENDING, REWARD, feed_of, leg, position
from adapters.maker.contracts import (
    BASE,
    ENGINE_ILK,
    FARM_EARNED,
    FARM_REWARDS_TOKEN,
    GET_CDPS_ASC,
    ILK_LIST,
    OWNER_URNS,
    OWNER_URNS_COUNT,
    PAR,
    URN_FARMS,
    VAT_URNS,
    WAD,
    Core,
    core,
    dripped,
    ilk_name,
)
from adapters.maker.ilks import Ilk, fee_apy, ilk_facts, spot_price, usds_token
from adapters.maker.section import MakerAddresses
from adapters.position_warnings import Warnings, outcome
from adapters.prices import UsdPrice, token_feeds, warned_usd_price
from adapters.risk import Collateral, Unit, borrow_risk, oracle_info
from addresses import ChainAddresses
from chain import ChainReader, erc20, first, no_read
from chain.abi import ZERO_ADDRESS
from chain.lens import Lens
from errors import ProtocolError

LENS = Lens("MakerLens", ("address", "address", "uint256", "address[]", "address[]"))
MAX_URNS = 200
"""Staking-engine urns the lens reads per wallet (each is one `open`; a wallet rarely has many)."""


@dataclass(frozen=True)
class Urn:
    kind: str
    """The position's `type`: maker-vault (CdpManager), maker-urn (the Vat's own), sky-lockstake."""
    urn: str
    ilk: bytes
    cdp: int | None
    ink: int
    art: int


async def fetch(ctx: FetchContext[MakerAddresses], wallet: str) -> dict[str, Any]:
    maker = ctx.section
    reader = ctx.reader()
    log, key = maker.chain_log, ("maker core", maker.chain_log.address)
    # An account's input after the wallet's knows the ChainLog's contracts: its first reads wait for its lens too.
    known: Core | None = reader.settled(key)
    priced = token_feeds(ctx.chain)
    feeds = [feed.feed for feed in priced.values()]
    initcode = LENS.initcode(wallet, log.address, MAX_URNS, list(priced), feeds)
    reader.prefetch([initcode], [log.address, *(known.first_read if known else ())])
    contracts = await reader.shared(key, lambda: core(reader, log.address))
    owned, direct, staked = await asyncio.gather(
        _managed(reader, contracts, wallet),
        _direct(reader, contracts, wallet),
        _staked(reader, contracts, wallet, ctx.warnings),
    )
    urns = [urn for urn in (*owned, *direct, *staked) if urn.ink or urn.art]
    ilks = list(dict.fromkeys(urn.ilk for urn in urns))
    facts = await asyncio.gather(*(ilk_facts(reader, contracts, ilk, ctx.warnings) for ilk in ilks))
    by_ilk = dict(zip(ilks, facts))
    if not urns:
        return {"vaults": []}
    (par,), (base,), now, dai, usds, farms = await asyncio.gather(
        reader.call(contracts.spot, PAR, label="Maker Spotter"),
        reader.call(contracts.jug, BASE, label="Maker Jug"),
        reader.block_timestamp(),
        erc20.token_info(reader, contracts.dai),
        usds_token(reader, contracts) if any(urn.kind == "sky-lockstake" for urn in urns) else no_read(),
        asyncio.gather(*(_farm(reader, ctx.chain, contracts, urn, ctx.warnings) for urn in urns)),
    )
    vaults = []
    for urn, farm in zip(urns, farms):
        facts_of = by_ilk[urn.ilk]
        debt_token = usds if urn.kind == "sky-lockstake" else dai
        vaults.append(_vault(urn, facts_of, par, base, now, debt_token, ctx.warnings, contracts.spot.lower(), farm))
    return {"vaults": vaults}


Farmed = tuple[dict[str, Any], UsdPrice | None]
"""A staking-engine urn's farm as `MakerFarm` shows it, and its reward token's USD price."""


async def _farm(
    reader: ChainReader, chain: ChainAddresses, contracts: Core, urn: Urn, warnings: Warnings
) -> Farmed | None:
    """A staking-engine urn's farm and what it has earned there (`urnFarms(urn)`, the farm's
    `rewardsToken()` and `earned(urn)`), with the token's price; None where it farms nothing. The
    lens read them all with the urn (lenses/MakerLens.sol)."""
    if urn.kind != "sky-lockstake" or contracts.engine is None:
        return None
    (farm,) = await reader.call(contracts.engine, URN_FARMS, urn.urn, label="Sky LockstakeEngine")
    if farm == ZERO_ADDRESS:
        return None
    label = f"Sky farm {farm}"

    async def read() -> Farmed:
        (token,), (earned,) = await asyncio.gather(
            reader.call(farm, FARM_REWARDS_TOKEN, label=label), reader.call(farm, FARM_EARNED, urn.urn, label=label)
        )
        info, price = await asyncio.gather(
            erc20.token_info(reader, token), warned_usd_price(reader, chain, token, warnings)
        )
        usd = price.value(earned, info["decimals"]) if price else None
        return {"farm": str(farm).lower(), "rewardToken": info, "claimable": str(earned), "claimableUsd": usd}, price

    found = await outcome(read())
    if isinstance(found, ProtocolError):
        warnings.left_out("the farm rewards of staking-engine urn", urn.urn, found)
        return None
    return found


async def _managed(reader: ChainReader, contracts: Core, wallet: str) -> list[Urn]:
    ids, urns, ilks = await reader.call(
        contracts.get_cdps, GET_CDPS_ASC, contracts.manager, wallet, label="Maker GetCdps"
    )
    amounts = await asyncio.gather(*(_urn(reader, contracts, ilk, urn) for urn, ilk in zip(urns, ilks)))
    return [
        Urn("maker-vault", str(urn).lower(), ilk, cdp, *held) for cdp, urn, ilk, held in zip(ids, urns, ilks, amounts)
    ]


async def _direct(reader: ChainReader, contracts: Core, wallet: str) -> list[Urn]:
    (ilks,) = await reader.call(contracts.ilk_registry, ILK_LIST, label="Maker IlkRegistry")
    amounts = await asyncio.gather(*(_urn(reader, contracts, ilk, wallet) for ilk in ilks))
    return [Urn("maker-urn", wallet, ilk, None, *held) for ilk, held in zip(ilks, amounts)]


async def _staked(reader: ChainReader, contracts: Core, wallet: str, warnings: Warnings) -> list[Urn]:
    engine, label = contracts.engine, "Sky LockstakeEngine"
    if engine is None:
        return []
    (count,), (ilk,) = await asyncio.gather(
        reader.call(engine, OWNER_URNS_COUNT, wallet, label=label), reader.call(engine, ENGINE_ILK, label=label)
    )
    if count > MAX_URNS:
        message = f"the wallet opened {count} staking-engine urns; those after the first {MAX_URNS} are left out"
        warnings.add("PART_UNREADABLE", engine, message)
    urns = await asyncio.gather(
        *(first(reader.call(engine, OWNER_URNS, wallet, i, label=label)) for i in range(min(count, MAX_URNS)))
    )
    amounts = await asyncio.gather(*(_urn(reader, contracts, ilk, urn) for urn in urns))
    return [Urn("sky-lockstake", str(urn).lower(), ilk, None, *held) for urn, held in zip(urns, amounts)]


async def _urn(reader: ChainReader, contracts: Core, ilk: bytes, urn: str) -> tuple[int, int]:
    ink, art = await reader.call(contracts.vat, VAT_URNS, ilk, urn, label="Maker Vat")
    return ink, art


def _vault(
    urn: Urn,
    ilk: Ilk,
    par: int,
    base: int,
    now: int,
    debt_token: dict[str, Any] | None,
    warnings: Warnings,
    spotter: str,
    farmed: Farmed | None,
) -> dict[str, Any]:
    """A vault's figures and its legs: its collateral in the token's own units (the Vat's ink is
    18 decimals whatever the token's; its join scaled it up exactly), priced by the Spotter's
    price from the ilk's oracle, and its debt at the Spotter's par."""
    rate = dripped(ilk.rate, ilk.duty, base, ilk.rho, now)
    owed = urn.art * rate
    price = spot_price(ilk, par)
    usd_per_dai = Fraction(par, RAY)
    collateral = Fraction(urn.ink, WAD)
    risk = None
    if urn.art and price is not None:
        debt = Fraction(owed, WAD * RAY)
        held = Collateral(ilk.token, collateral, price / usd_per_dai, Fraction(RAY, ilk.mat))
        risk = borrow_risk(debt, [held], Unit(usd_per_dai, Fraction(1)), warnings, f"{urn.urn} {ilk_name(urn.ilk)}")
        risk["oracle"] = oracle_info(ilk.pip, ilk.updated, now)
    name, key = ilk_name(urn.ilk), f"{urn.urn.lower()}:{ilk_name(urn.ilk)}"
    collateral_usd, debt_usd = (
        float(collateral * price) if price is not None else None,
        float(Fraction(owed, WAD * RAY) * usd_per_dai),
    )
    ink = urn.ink // 10 ** (18 - ilk.token["decimals"]) if ilk.token and ilk.token["decimals"] <= 18 else None
    legs = [
        leg(COLLATERAL, f"{key}:collateral", ilk.token, ink, collateral_usd, ilk.pip),
        leg(DEBT, f"{key}:debt", debt_token, -(-owed // RAY), debt_usd, spotter),
    ]
    farm, farm_price = farmed or (None, None)
    if farm is not None:
        token = farm["rewardToken"]
        reward_key = f"{key}:{token['address']}:reward"
        legs.append(leg(REWARD, reward_key, token, int(farm["claimable"]), farm["claimableUsd"], feed_of(farm_price)))
    label = f"{name} {'#' + str(urn.cdp) if urn.cdp is not None else urn.urn}"
    return {
        **position("MakerVault", key, LENDING, label, legs, apy=fee_apy(ilk, base)),
        "type": urn.kind,
        "cdpId": None if urn.cdp is None else str(urn.cdp),
        "urn": urn.urn,
        "ilk": ilk_name(urn.ilk),
        "collateralAsset": ilk.token,
        "collateral": str(urn.ink),
        "collateralUsd": collateral_usd,
        "debtAsset": debt_token,
        "normalizedDebt": str(urn.art),
        "debt": str(-(-owed // RAY)),
        "debtUsd": debt_usd,
        "priceUsd": float(price) if price is not None else None,
        "stabilityFeeApy": fee_apy(ilk, base),
        "liquidationRatio": float(Fraction(ilk.mat, RAY)),
        "risk": risk,
        "farm": farm,
    }
