"""Every test world on one chain: the Morpho world, two Aave v3 markets and two v2 ones, Venus's
core pool, two Comets, two Pendle maturities, Fluid's resolvers, Lido, Uniswap v3's pools, Maker's
vaults, the vault-style protocols' vaults and feeds (Neutrl, Midas, Avantis, Avant), ether.fi, Rocket Pool, Renzo and
Kelp, Balancer's v2 and v3 Vaults, pools and gauges, Aura's Booster, Curve's factories, pools and gauges
(its lending pools of wrapped coins too), Convex's Booster on them, in which the same demo wallets hold
positions; and a demo wallet (`controller`) whose positions are held by the accounts it controls:
a Maker vault and a Morpho supply through its DSProxy, Instadapp DSAs with Aave and Morpho
supplies, Summer.fi DPM accounts with Morpho supplies, and two Euler sub-accounts (one
borrowing); EigenLayer's restaked shares and queued withdrawals (saver) and an EigenPod
(borrower). Tokens with no feed are paired in Uniswap v3 pools deep enough for their average to
price them (tEIGEN with WETH, avUSD and NUSD with USDC: tests/prices_world.py), made before the
vault-style world's week passes; Pendle's PT has an Euler vault, where the saver deposits (priced
by Pendle's oracle there). The devnet and the fault-schedule property test use it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import eth_abi

import auth
from tests import (
    aave2_world,
    aave_world,
    accounts_world,
    aura_world,
    balancer_world,
    compound_v2_world,
    compound_world,
    convex_world,
    curve_lending_world,
    curve_world,
    eigenlayer_world,
    euler_world,
    fluid_world,
    lido_world,
    liquid_staking_world,
    liquity_world,
    maker_world,
    morpho_world,
    pancakeswap_world,
    pendle_world,
    prices_world,
    uniswap_world,
    vault_style_world,
    venus_world,
)
from tests.evm import Anvil, selector


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
    aave2 = aave2_world.build(node, {role: world.wallets[role] for role in ("lender", "borrower", "saver", "empty")})
    venus = venus_world.build(node, {role: world.wallets[role] for role in ("lender", "borrower", "saver", "empty")})
    comet = compound_world.build(node, {role: world.wallets[role] for role in ("saver", "borrower", "empty")})
    compound_v2 = compound_v2_world.build(
        node, {role: world.wallets[role] for role in ("lender", "borrower", "saver", "empty")}
    )
    liquity = liquity_world.build(node, {role: accounts[role] for role in ("borrower", "depositor", "saver", "empty")})
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
    pancake = pancakeswap_world.build(
        node, {"lp": accounts["saver"], "trader": node.accounts[13], "empty": accounts["empty"]}, True, uniswap
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
    _listed_vault(euler, "ePT", pendle.active.pt, 95 * 10**16, accounts["saver"], 10 * lido_world.ETHER)
    balancer = balancer_world.build(
        node, {"lp": accounts["saver"], "empty": accounts["empty"], "seller": accounts["borrower"]}
    )
    aura = aura_world.build(node, {"depositor": accounts["saver"], "empty": accounts["empty"]}, balancer)
    bpt = balancer.pools["stable"][0]
    held = node.call(bpt, "balanceOf(address)", accounts["saver"])
    _listed_vault(euler, "eBPT", bpt, lido_world.ETHER, accounts["saver"], held // 10)
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
    maker_of_markets = prices_world.Pools(
        node, uniswap.factory, uniswap.manager, uniswap.router, node.accounts[19].lower(), node.accounts[13].lower()
    )

    def paired(listed: vault_style_world.VaultStyleWorld) -> None:
        usdc, weth = uniswap.tokens["USDC"], uniswap.tokens["WETH"]
        maker_of_markets.listed(eigenlayer.tokens["tEIGEN"], weth, Fraction(1, 1_000), Fraction(200))
        maker_of_markets.listed(listed.tokens["avUSD"], usdc, Fraction(1), Fraction(2_000_000), fee=500)
        maker_of_markets.listed(listed.tokens["NUSD"], usdc, Fraction(9_995, 10_000), Fraction(1_500_000), fee=500)

    vaults = vault_style_world.build(
        node,
        {"holder": accounts["saver"], "cooler": accounts["borrower"], "empty": accounts["empty"]},
        listed=paired,
    )
    staking.grow()
    node.send(comet.eth_usd, "set(int256,uint256)", compound_world.PRICES["WETH"], world.timestamp())
    world.set_feed(morpho_world.USDC_USD)
    chain = str(node.chain_id)
    data = world.addresses_override()
    data[chain]["aave"] = aave.addresses_override()[chain]["aave"] + aave2.addresses_override()[chain]["aave"]
    data[chain]["spark"] = aave.addresses_override()[chain]["spark"]
    data[chain]["compound"] = comet.addresses_override()[chain]["compound"]
    data[chain]["compoundV2"] = compound_v2.section()
    data[chain]["liquity"] = liquity.section()
    data[chain]["pendle"] = pendle.addresses_override()[chain]["pendle"]
    data[chain]["fluid"] = fluid.addresses_override()[chain]["fluid"]
    data[chain]["lido"] = lido.addresses_override()[chain]["lido"]
    data[chain]["uniswap"] = uniswap.addresses_override()[chain]["uniswap"]
    data[chain]["pancakeswap"] = pancake.addresses_override()[chain]["pancakeswap"]
    data[chain]["venus"] = venus.addresses_override()[chain]["venus"]
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
    for other in (pendle, fluid, lido, uniswap, pancake, vaults, staking):
        data[chain]["priceFeeds"].update(other.addresses_override()[chain]["priceFeeds"])
    data[chain]["priceFeeds"].update(aura.addresses_override()[chain]["priceFeeds"])
    data[chain]["priceFeeds"].update(liquity.addresses_override()[chain]["priceFeeds"])
    for protocol in ("etherfi", "rocketpool", "renzo", "kelp"):
        data[chain][protocol] = staking.addresses_override()[chain][protocol]
    parts = {
        "morpho": world,
        "aave": aave,
        "aave2": aave2,
        "venus": venus,
        "compound": comet,
        "compound_v2": compound_v2,
        "liquity": liquity,
        "pendle": pendle,
        "fluid": fluid,
        "lido": lido,
        "uniswap": uniswap,
        "pancakeswap": pancake,
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


def later_day(worlds: AllWorlds) -> str:
    """A day of the demo wallets after the worlds were built (the devnet's, and the second step of
    tests/test_past_blocks.py): each wallet holding a position that only its world's build made
    acts once or twice, small, through the protocol's own entry points, so that a series over the
    chain finds flows (every world makes its positions at its deployment, before any point a
    series from block 1 keeps). The coins a deposit takes are minted to the wallet first, as a
    purchase would give them. Returns what they did, one line."""
    node, parts, wallets = worlds.node, worlds.parts, worlds.wallets
    saver, borrower, controller = wallets["saver"], wallets["borrower"], wallets["controller"]
    done: list[str] = []
    _maker(worlds.parts["maker"], controller, saver, borrower)
    done.append(
        "Maker: the controller's DSProxy locks 1 WETH and draws 500 DAI (DssProxyActions), the saver "
        "locks 0.01 WBTC and draws 100 DAI on its vault (CdpManager.frob) and 0.5 WETH in its own urn "
        "(Vat.frob), the borrower locks 1,000 SKY and draws 100 USDS in the staking engine"
    )
    euler = parts["euler"].contracts
    node.send(euler["USDC"], "mint(address,uint256)", controller, 100 * euler_world.USDC)
    call = "call(address,address,uint256,bytes)"
    node.send(euler["USDC"], "mint(address,uint256)", controller, 100 * euler_world.USDC)
    node.send(euler["eUSDC"], "deposit(uint256,address)", 100 * euler_world.USDC, controller, sender=controller)
    lend = euler_world._data("deposit(uint256,address)", 100 * euler_world.USDC, parts["euler"].sub(2))
    node.send(euler["evc"], call, euler["eUSDC"], controller, 0, lend, sender=controller)
    borrow = euler_world._data("borrow(uint256,address)", 50 * euler_world.USDC, controller)
    node.send(euler["evc"], call, euler["eUSDC"], parts["euler"].sub(1), 0, borrow, sender=controller)
    done.append(
        "Euler: the controller deposits 100 USDC, its sub-account 2 100 USDC, its sub-account 1 borrows 50 (the EVC)"
    )
    eigenlayer = parts["eigenlayer"]
    eigenlayer.deposit(saver, "eLST", eigenlayer_world.ETHER // 2)
    eigenlayer.queue_withdrawal(saver, [eigenlayer.strategies["eLST"]], [eigenlayer_world.ETHER // 10])
    done.append("EigenLayer: the saver deposits 0.5 eLST and queues a withdrawal of 0.1")
    _curve(parts["curve"], parts["convex"], saver)
    done.append(
        "Curve: the saver adds 100 USDC and 100 crvUSD to the stable pool, stakes 50 LP in its gauge and "
        "claims its rewards; Convex: it deposits 20 LP in the Booster and claims its rewards"
    )
    _balancer(parts["balancer"], parts["aura"], saver)
    done.append(
        "Balancer: the saver joins the weighted pool through the Vault and stakes BPT in its gauge; "
        "Aura: it deposits stable BPT in the Booster"
    )
    pancake = parts["pancakeswap"]
    node.send(pancake.master_chef, "harvest(uint256,address)", pancake.staked["ranged"], saver, sender=saver)
    done.append("PancakeSwap: the saver harvests a day's CAKE of an NFT it staked (MasterChefV3.harvest)")
    lido = parts["lido"]
    submit = "0x" + (selector("submit(address)") + bytes(32)).hex()
    node.transact({"to": lido.steth, "data": submit, "value": hex(lido_world.ETHER // 2)}, saver)
    node.send(lido.steth, "approve(address,uint256)", lido.wsteth, lido_world.ETHER // 10, sender=saver)
    node.send(lido.wsteth, "wrap(uint256)", lido_world.ETHER // 10, sender=saver)
    comet = parts["compound"]
    node.send(comet.weth_market, "supplyTo(address,address,uint256)", borrower, comet.tokens["WBTC"], 10**6,
              sender=borrower)  # fmt: skip
    v2 = parts["compound_v2"]
    compound_v2_world.borrow(node, v2, "USDC", 100 * 10**6, borrower)
    aave_world.supply(node, parts["aave"].spark[0], "WETH", lido_world.ETHER // 10, saver)
    pendle = parts["pendle"].active
    node.send(pendle.pt, "transfer(address,uint256)", staking_other(worlds), lido_world.ETHER, sender=saver)
    done.append(
        "Compound: the borrower supplies 0.01 WBTC to the WETH Comet and borrows 100 USDC more in v2; "
        "Spark: the saver supplies 0.1 WETH; "
        "Pendle: the saver sends 1 PT to another wallet"
    )
    done.append("Lido: the saver stakes 0.5 ETH (submit) and wraps 0.1 stETH")
    liquity = parts["liquity"]
    node.send(liquity.borrower_operations, "withdrawLUSD(uint256,uint256,address,address)",
              liquity_world.MAX_BORROWING_FEE, 500 * liquity_world.ETHER, liquity_world.ZERO, liquity_world.ZERO,
              sender=borrower)  # fmt: skip
    node.send(liquity.stability_pool, "withdrawFromSP(uint256)", 100 * liquity_world.ETHER, sender=wallets["depositor"])
    done.append(
        "Liquity: the borrower draws 500 LUSD more from its trove; the depositor takes 100 LUSD out of the "
        "Stability Pool, with its ether and LQTY gains"
    )
    venus = parts["venus"]
    usdt = venus.markets["USDT"]
    node.send(usdt.underlying, "faucet(uint256)", 100 * venus_world.ETHER, sender=borrower)
    node.send(usdt.underlying, "approve(address,uint256)", usdt.vtoken, 100 * venus_world.ETHER, sender=borrower)
    venus_world.succeed(node, usdt.vtoken, "repayBorrow(uint256)", 100 * venus_world.ETHER, sender=borrower)
    venus_world.supply(node, venus, "USDT", 1_000 * venus_world.ETHER, saver)
    usdc = venus.pools.pools["Stablecoins"].markets["USDC"]
    node.send(usdc.underlying, "faucet(uint256)", 500 * venus_world.ETHER, sender=borrower)
    node.send(usdc.underlying, "approve(address,uint256)", usdc.vtoken, 500 * venus_world.ETHER, sender=borrower)
    node.send(usdc.vtoken, "repayBorrow(uint256)", 500 * venus_world.ETHER, sender=borrower)
    done.append(
        "Venus: the borrower repays 100 USDT (repayBorrow) and, in the Stablecoins pool, 500 USDC; "
        "the saver supplies 1,000 USDT (mint)"
    )
    staking = parts["liquid_staking"]
    other = staking_other(worlds)
    for token in ("eETH", "weETH", "rETH", "ezETH", "rsETH"):
        node.send(staking.contracts[token], "transfer(address,uint256)", other, 10**17, sender=saver)
    done.append(
        "ether.fi, Rocket Pool, Renzo, Kelp: the saver sends 0.1 of each token to another wallet "
        "(their test tokens have no deposit entry point)"
    )
    return "; ".join(done) + "."


def staking_other(worlds: AllWorlds) -> str:
    """The wallet the demo wallets send tokens to (no demo wallet: "other" of the liquid staking world)."""
    return str(worlds.parts["liquid_staking"].wallets["other"])


def _listed_vault(euler: euler_world.EulerWorld, name: str, token: str, price: int, saver: str, amount: int) -> None:
    """An Euler vault of a token with no feed, as Euler lists vaults of Pendle's PTs and of pool
    tokens, where the saver deposits `amount` (EVK's deposit): the token priced there by its own
    protocol (Pendle's oracle, Balancer's pool); `price` is Euler's oracle's, USD x 1e18."""
    node, made = euler.node, euler.contracts
    made[name] = node.deploy(
        euler_world.compile_all()["TestEVault"],
        ["address", "address", "address", "address", "uint256"],
        [made["evc"], token, made["oracle"], euler_world.USD, 1],
    )
    node.send(made["factory"], "record(address,bytes)", made[name], b"")
    node.send(made["oracle"], "setPrice(address,uint256)", token, price)
    node.send(token, "approve(address,uint256)", made[name], 2**256 - 1, sender=saver)
    node.send(made[name], "deposit(uint256,address)", amount, saver, sender=saver)


def _maker(maker: maker_world.MakerWorld, controller: str, saver: str, borrower: str) -> None:
    node, made = maker.node, maker.contracts
    manager, wad = made["CDP_MANAGER"], maker_world.WAD
    maker_world._hold(maker, "ETH-A", controller, wad, maker.proxy)
    lock = maker_world._calldata(
        "lockGemAndDraw(address,address,address,address,uint256,uint256,uint256,bool)",
        manager, made["MCD_JUG"], made[maker_world.join_key("ETH-A")], made["MCD_JOIN_DAI"], maker.cdps["proxy"],
        wad, 500 * wad, True,
    )  # fmt: skip
    node.send(maker.proxy, "execute(address,bytes)", made["PROXY_ACTIONS"], lock, sender=controller)
    wbtc_join, btc = made[maker_world.join_key("WBTC-A")], 10 ** maker_world.ILKS["WBTC-A"][1]
    urn = node.call(manager, "urns(uint256)", maker.cdps["direct"], returns=("address",))
    maker_world._hold(maker, "WBTC-A", saver, btc // 100, wbtc_join)
    node.send(wbtc_join, "join(address,uint256)", urn, btc // 100, sender=saver)
    node.send(manager, "frob(uint256,int256,int256)", maker.cdps["direct"], wad // 100, 100 * wad, sender=saver)
    eth_join = made[maker_world.join_key("ETH-A")]
    maker_world._hold(maker, "ETH-A", saver, wad // 2, eth_join)
    node.send(eth_join, "join(address,uint256)", saver, wad // 2, sender=saver)
    frob = "frob(bytes32,address,address,address,int256,int256)"
    node.send(made["MCD_VAT"], frob, maker_world.ilk_key("ETH-A"), saver, saver, saver, wad // 2, 0, sender=saver)
    engine = made["LOCKSTAKE_ENGINE"]
    node.send(engine, "lock(address,uint256,uint256,uint16)", borrower, 0, 1_000 * wad, 0, sender=borrower)
    node.send(engine, "draw(address,uint256,address,uint256)", borrower, 0, borrower, 100 * wad, sender=borrower)


def _curve(curve: curve_world.CurveWorld, convex: convex_world.ConvexWorld, saver: str) -> None:
    node, e18 = curve.node, curve_world.E18
    amounts = [100 * 10**6, 100 * e18]
    for coin, amount in zip((curve.tokens["USDC"], curve.tokens["crvUSD"]), amounts):
        node.send(coin, "mint(address,uint256)", saver, amount)
        node.send(coin, "approve(address,uint256)", curve.stable, amount, sender=saver)
    node.send(curve.stable, "add_liquidity(uint256[],uint256)", amounts, 0, sender=saver)
    node.send(curve.stable, "approve(address,uint256)", curve.gauge, 50 * e18, sender=saver)
    node.send(curve.gauge, "deposit(uint256)", 50 * e18, sender=saver)
    node.send(curve.gauge, "claim_rewards()", sender=saver)
    node.send(curve.stable, "approve(address,uint256)", convex.booster, 20 * e18, sender=saver)
    node.send(convex.booster, "deposit(uint256,uint256,bool)", 1, 20 * e18, True, sender=saver)
    node.send(convex.rewards[1], "getReward()", sender=saver)


def _balancer(balancer: balancer_world.BalancerWorld, aura: aura_world.AuraWorld, saver: str) -> None:
    node = balancer.node
    pool, _ = balancer.pools["weighted"]
    tokens, _ = balancer.pool_tokens("weighted")
    bpt_out = node.call(pool, "getActualSupply()") // 1000
    join = eth_abi.encode(["uint256", "uint256"], [3, bpt_out])  # ALL_TOKENS_IN_FOR_EXACT_BPT_OUT
    request = (tokens, [balancer_world.MAX] * len(tokens), join, False)
    joined = "joinPool(bytes32,address,address,(address[],uint256[],bytes,bool))"
    node.send(balancer.vault, joined, balancer.pool_id("weighted"), saver, saver, request, sender=saver)
    node.send(balancer.gauge, "deposit(uint256)", bpt_out // 2, sender=saver)
    stable = balancer.pools["stable"][0]
    deposit = node.call(stable, "balanceOf(address)", saver) // 100
    node.send(stable, "approve(address,uint256)", aura.booster, deposit, sender=saver)
    node.send(aura.booster, "deposit(uint256,uint256,bool)", 1, deposit, True, sender=saver)


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
