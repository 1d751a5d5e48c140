"""Every test world on one chain: the Morpho world, two Aave v3 markets, two Comets, two Pendle
maturities, Fluid's resolvers, Lido, Uniswap v3's pools, Maker's vaults, the vault-style
protocols' vaults and feeds (Neutrl, Midas, Avantis, Avant), ether.fi, Rocket Pool, Renzo and
Kelp, Balancer's v2 and v3 Vaults, pools and gauges, Aura's Booster, Curve's factories, pools and gauges
(its lending pools of wrapped coins too), Convex's Booster on them, in which the same demo wallets hold
positions; and a demo wallet (`controller`) whose positions are held by the accounts it controls:
a Maker vault and a Morpho supply through its DSProxy, Instadapp DSAs with Aave and Morpho
supplies, Summer.fi DPM accounts with Morpho supplies, and two Euler sub-accounts (one
borrowing); EigenLayer's restaked shares and queued withdrawals (saver) and an EigenPod
(borrower). The devnet and the fault-schedule property test use it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import auth
from tests import (
    aave_world,
    accounts_world,
    aura_world,
    balancer_world,
    compound_world,
    convex_world,
    curve_lending_world,
    curve_world,
    eigenlayer_world,
    euler_world,
    fluid_world,
    lido_world,
    liquid_staking_world,
    maker_world,
    morpho_world,
    pendle_world,
    uniswap_world,
    vault_style_world,
)
from tests.evm import Anvil


@dataclass
class AllWorlds:
    node: Anvil
    wallets: dict[str, str]
    addresses: dict[str, Any]
    """The ADDRESSES_FILE content that points the service at all of them."""
    parts: dict[str, Any]
    """Each world by protocol (the vault-style protocols share "vaults"), to change positions, and
    the Morpho world's compiled test contracts ("artifacts")."""


def build(node: Anvil) -> AllWorlds:
    """Pendle's world first: its maturities need time to pass, which the others' feeds would not survive.
    The vault-style world last: its APYs span the week before the newest block; the two feeds
    with a one-day heartbeat are set again after it."""
    accounts = morpho_world.demo_wallets(node)
    pendle = pendle_world.build(
        node, {"pendler": accounts["saver"], "former": accounts["depositor"], "empty": accounts["empty"]}
    )
    artifacts = morpho_world.compile_all()
    world = morpho_world.build(node, artifacts)
    aave = aave_world.build(node, {role: world.wallets[role] for role in ("lender", "borrower", "saver", "empty")})
    comet = compound_world.build(node, {role: world.wallets[role] for role in ("saver", "borrower", "empty")})
    fluid = fluid_world.build(node, {role: world.wallets[role] for role in ("lender", "borrower", "empty")})
    lido = lido_world.build(
        node, {"holder": accounts["saver"], "requester": accounts["borrower"], "empty": accounts["empty"]}
    )
    curve = curve_world.build(
        node, {"lp": accounts["saver"], "staker": accounts["borrower"], "empty": accounts["empty"]}
    )
    convex = convex_world.build(node, curve, {"depositor": accounts["saver"], "empty": accounts["empty"]})
    curve_lending_world.build(node, curve)
    uniswap = uniswap_world.build(
        node, {"lp": accounts["saver"], "trader": node.accounts[13], "empty": accounts["empty"]}, demo=True
    )
    controller = node.accounts[7]
    maker = maker_world.build(
        node,
        {"owner": controller, "direct": accounts["saver"], "staker": accounts["borrower"], "empty": accounts["empty"]},
        elapse=0,
    )
    controlled = accounts_world.build(
        node, world, controller, node.accounts[8], aave, registry=maker.contracts["PROXY_REGISTRY"]
    )
    euler = euler_world.build(node, controller, elapse=0)
    balancer = balancer_world.build(node, {"lp": accounts["saver"], "empty": accounts["empty"]})
    aura = aura_world.build(node, {"depositor": accounts["saver"], "empty": accounts["empty"]}, balancer)
    eigenlayer = eigenlayer_world.build(
        node, {"staker": accounts["saver"], "restaker": accounts["borrower"], "empty": accounts["empty"]}
    )
    staking = liquid_staking_world.build(
        node,
        {
            "holder": accounts["saver"],
            "requester": accounts["borrower"],
            "small": accounts["depositor"],
            "empty": accounts["empty"],
            "other": node.accounts[13],
        },
        elapse=False,
    )
    vaults = vault_style_world.build(
        node, {"holder": accounts["saver"], "cooler": accounts["borrower"], "empty": accounts["empty"]}
    )
    staking.grow()
    node.send(comet.eth_usd, "set(int256,uint256)", compound_world.PRICES["WETH"], world.timestamp())
    world.set_feed(morpho_world.USDC_USD)
    chain = str(node.chain_id)
    data = world.addresses_override()
    data[chain]["aave"] = aave.addresses_override()[chain]["aave"]
    data[chain]["spark"] = aave.addresses_override()[chain]["spark"]
    data[chain]["compound"] = comet.addresses_override()[chain]["compound"]
    data[chain]["pendle"] = pendle.addresses_override()[chain]["pendle"]
    data[chain]["fluid"] = fluid.addresses_override()[chain]["fluid"]
    data[chain]["lido"] = lido.addresses_override()[chain]["lido"]
    data[chain]["uniswap"] = uniswap.addresses_override()[chain]["uniswap"]
    data[chain]["maker"] = maker.addresses_override()
    data[chain]["accounts"] = controlled.addresses_override()
    data[chain]["euler"] = euler.addresses_override()
    data[chain]["balancer"] = balancer.addresses_override()[chain]["balancer"]
    data[chain]["aura"] = aura.addresses_override()[chain]["aura"]
    data[chain]["curve"] = curve.addresses_override()[chain]["curve"]
    data[chain]["convex"] = convex.addresses_override()[chain]["convex"]
    data[chain]["priceFeeds"].update(convex.price_feeds())
    data[chain]["priceFeeds"].update(euler.feeds())
    data[chain]["priceFeeds"].update(maker.feeds())
    data[chain]["eigenlayer"] = eigenlayer.addresses_override()[chain]["eigenlayer"]
    data[chain]["priceFeeds"].update(eigenlayer.addresses_override()[chain]["priceFeeds"])
    for protocol in ("neutrl", "midas", "avantis", "avant", "ethena", "sky", "erc4626", "sparkVaults"):
        data[chain][protocol] = vaults.addresses_override()[chain][protocol]
    for other in (comet, vaults):
        data[chain].setdefault("currencyFeeds", {}).update(other.addresses_override()[chain]["currencyFeeds"])
    for other in (pendle, fluid, lido, uniswap, vaults):
        data[chain]["priceFeeds"].update(other.addresses_override()[chain]["priceFeeds"])
    data[chain]["priceFeeds"].update(aura.addresses_override()[chain]["priceFeeds"])
    for protocol in ("etherfi", "rocketpool", "renzo", "kelp"):
        data[chain][protocol] = staking.addresses_override()[chain][protocol]
    parts = {
        "morpho": world,
        "aave": aave,
        "compound": comet,
        "pendle": pendle,
        "fluid": fluid,
        "lido": lido,
        "uniswap": uniswap,
        "balancer": balancer,
        "aura": aura,
        "maker": maker,
        "accounts": controlled,
        "euler": euler,
        "eigenlayer": eigenlayer,
        "curve": curve,
        "convex": convex,
        "vaults": vaults,
        "liquid_staking": staking,
        "artifacts": artifacts,
    }
    return AllWorlds(node, {**world.wallets, "controller": controller}, data, parts)


def prepare(node: Anvil, folder: Path, key_name: str) -> tuple[AllWorlds, str]:
    """Every world on `node`, and in `folder` what a served app reads: the addresses file pointing
    at them and a keys file with one key, returned."""
    worlds = build(node)
    (folder / "addresses.json").write_text(json.dumps(worlds.addresses))
    return worlds, auth.create_key(folder / "keys.env", key_name)[0]


def pools(worlds: AllWorlds) -> list[tuple[str, list[tuple[str, str]]]]:
    """A pool of each kind the protocols answer `poolDetails` for (a name, its (protocol, pool)
    inputs): what bench/latency.py times and tests/test_rounds.py counts."""
    parts, data = worlds.parts, worlds.addresses[str(worlds.node.chain_id)]
    balancer = parts["balancer"]
    return [
        ("morpho pool (a market)", [("morpho", morpho_world.market_id(parts["morpho"].market_a))]),
        ("maker pool (an ilk, ETH-A, by its bytes32 name)", [("maker", "0x" + maker_world.ilk_key("ETH-A").hex())]),
        ("euler pool (an EVK vault, eUSDC)", [("euler", parts["euler"].contracts["eUSDC"])]),
        ("eigenlayer pool (a strategy)", [("eigenlayer", parts["eigenlayer"].strategies["eLST"])]),
        ("curve pool (a stableswap-ng pool and its gauge)", [("curve", parts["curve"].stable)]),
        ("convex pool (a Booster pool by its reward pool)", [("convex", min(parts["convex"].rewards.values()))]),
        ("balancer pool (a v2 composable stable pool and its gauge)", [("balancer", balancer.pools["stable"][0])]),
        ("balancer pool (a v3 weighted pool)", [("balancer", balancer.v3.pool)]),
        ("aura pool (a Booster pool by its reward pool)", [("aura", parts["aura"].reward_pools[1])]),
        ("lido pool (stETH, its withdrawal queue)", [("lido", data["lido"]["stETH"])]),
        ("etherfi pool (weETH, its withdraw request NFT)", [("etherfi", data["etherfi"]["weETH"])]),
        ("rocketpool pool (rETH)", [("rocketpool", data["rocketpool"]["rETH"])]),
        ("renzo pool (ezETH)", [("renzo", data["renzo"]["ezETH"])]),
        ("kelp pool (rsETH)", [("kelp", data["kelp"]["rsETH"])]),
        ("sky pool (a vault)", [("sky", data["sky"]["vaults"][0]["address"])]),
    ]
