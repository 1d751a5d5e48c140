"""Reading the addresses data: `addresses.json` with `ADDRESSES_FILE` laid over it, each entry
checked and parsed into its section (addresses/sections.py), or AddressesError naming the entry."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from addresses.sections import (
    CURVE_FACTORY_KINDS,
    SAVINGS_RATES,
    VAULT_STYLE,
    AaveMarket,
    AccountsAddresses,
    AuraAddresses,
    BalancerAddresses,
    ChainAddresses,
    CometMarket,
    CompoundAddresses,
    ConvexAddresses,
    CurveAddresses,
    CurveFactory,
    Deployment,
    EigenlayerAddresses,
    EtherfiAddresses,
    EulerAddresses,
    FluidAddresses,
    KelpAddresses,
    LidoAddresses,
    MakerAddresses,
    MorphoAddresses,
    PendleAddresses,
    PricedToken,
    PriceFeed,
    RenzoAddresses,
    RocketPoolAddresses,
    ShareVault,
    SummerDpm,
    UniswapAddresses,
    UniswapV3Addresses,
    UniswapV4Addresses,
    VaultStyleAddresses,
)

BUILT_IN = Path(__file__).resolve().parents[1] / "addresses.json"


_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")


class AddressesError(ValueError):
    """The addresses data is not usable; the message names the file and the entry."""


def load(override: str | Path | None = None) -> dict[int, ChainAddresses]:
    """The built-in data with `override` laid over it; AddressesError when either is unusable."""
    raw = _read(BUILT_IN)
    if override:
        for chain, sections in _read(Path(override)).items():
            if not isinstance(sections, dict):
                raise AddressesError(f"{override}: chain {chain} must map to an object")
            merged = dict(raw.get(chain, {}))
            feeds = {**merged.get("priceFeeds", {}), **sections.get("priceFeeds", {})}
            merged.update(sections)
            merged["priceFeeds"] = feeds
            raw[chain] = merged
    source = f"{BUILT_IN.name}{f' + {override}' if override else ''}"
    return {chain.chain_id: chain for chain in (_chain(key, value, source) for key, value in raw.items())}


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AddressesError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise AddressesError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise AddressesError(f"{path}: must be a JSON object keyed by chain id")
    return data


def _chain(key: str, value: Any, source: str) -> ChainAddresses:
    where = f"{source}: chain {key}"
    if not key.isdigit() or not isinstance(value, dict):
        raise AddressesError(f"{where}: keys must be chain ids and values objects")
    feeds = value.get("priceFeeds", {})
    if not isinstance(feeds, dict):
        raise AddressesError(f"{where}: priceFeeds must be an object keyed by token address")
    return ChainAddresses(
        chain_id=int(key),
        name=str(value.get("name", f"chain {key}")),
        morpho=_morpho(value["morpho"], f"{where} morpho") if "morpho" in value else None,
        aave=_aave(value.get("aave", []), f"{where} aave"),
        spark=_aave(value.get("spark", []), f"{where} spark", "spark"),
        compound=_compound(value["compound"], f"{where} compound") if "compound" in value else None,
        pendle=_pendle(value["pendle"], f"{where} pendle") if "pendle" in value else None,
        fluid=_fluid(value["fluid"], f"{where} fluid") if "fluid" in value else None,
        balancer=_balancer(value["balancer"], f"{where} balancer") if "balancer" in value else None,
        aura=_aura(value["aura"], f"{where} aura") if "aura" in value else None,
        lido=_lido(value["lido"], f"{where} lido") if "lido" in value else None,
        uniswap=_uniswap(value["uniswap"], f"{where} uniswap") if "uniswap" in value else None,
        maker=_maker(value["maker"], f"{where} maker") if "maker" in value else None,
        euler=_euler(value["euler"], f"{where} euler") if "euler" in value else None,
        etherfi=_etherfi(value["etherfi"], f"{where} etherfi") if "etherfi" in value else None,
        rocketpool=_rocketpool(value["rocketpool"], f"{where} rocketpool") if "rocketpool" in value else None,
        renzo=_renzo(value["renzo"], f"{where} renzo") if "renzo" in value else None,
        kelp=_kelp(value["kelp"], f"{where} kelp") if "kelp" in value else None,
        accounts=_accounts(value.get("accounts", {}), f"{where} accounts"),
        eigenlayer=_eigenlayer(value["eigenlayer"], f"{where} eigenlayer") if "eigenlayer" in value else None,
        curve=_curve(value["curve"], f"{where} curve") if "curve" in value else None,
        convex=_convex(value["convex"], f"{where} convex") if "convex" in value else None,
        price_feeds={
            _address(token, f"{where} priceFeeds"): _feed(feed, f"{where} priceFeeds {token}")
            for token, feed in feeds.items()
        },
        vault_style={name: _vault_style(value[name], f"{where} {name}") for name in VAULT_STYLE if name in value},
        currency_feeds={
            currency: _feed(feed, f"{where} currencyFeeds {currency}")
            for currency, feed in _object(value.get("currencyFeeds", {}), f"{where} currencyFeeds").items()
        },
        sequencer_uptime_feed=(
            _address(value["sequencerUptimeFeed"], f"{where} sequencerUptimeFeed")
            if "sequencerUptimeFeed" in value
            else None
        ),
    )


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise AddressesError(f"{where}: must be an object")
    return value


def _morpho(value: Any, where: str) -> MorphoAddresses:
    if not isinstance(value, dict):
        raise AddressesError(f"{where}: must be an object")
    return MorphoAddresses(
        blue=_deployment(value.get("blue"), f"{where} blue"),
        vault_v1_factories=_deployments(value.get("vaultV1Factories", []), f"{where} vaultV1Factories"),
        vault_v2_factories=_deployments(value.get("vaultV2Factories", []), f"{where} vaultV2Factories"),
        adaptive_curve_irm=(
            _address(value["adaptiveCurveIrm"], f"{where} adaptiveCurveIrm") if value.get("adaptiveCurveIrm") else None
        ),
    )


def _aave(value: Any, where: str, protocol: str = "aave") -> tuple[AaveMarket, ...]:
    if not isinstance(value, list):
        raise AddressesError(f"{where}: must be a list of markets")
    markets = []
    for index, market in enumerate(value):
        here = f"{where}[{index}]"
        if not isinstance(market, dict) or not isinstance(market.get("name"), str):
            raise AddressesError(f"{here}: must be an object with a name")
        provider, pool, data_provider, oracle = (
            _address(market.get(field), f"{here} {field}")
            for field in ("addressesProvider", "pool", "dataProvider", "oracle")
        )
        markets.append(AaveMarket(market["name"], provider, pool, data_provider, oracle, protocol))
    return tuple(markets)


def _compound(value: Any, where: str) -> CompoundAddresses:
    if not isinstance(value, dict) or not isinstance(value.get("markets"), list):
        raise AddressesError(f"{where}: must be an object with a markets list")
    markets = []
    for index, market in enumerate(value["markets"]):
        if not isinstance(market, dict) or not isinstance(market.get("name"), str):
            raise AddressesError(f"{where} markets[{index}]: must be an object with name and comet")
        markets.append(
            CometMarket(
                market["name"],
                _address(market.get("comet"), f"{where} markets[{index}]"),
                str(market.get("priceCurrency", "USD")),
            )
        )
    rewards = _address(value["rewards"], f"{where} rewards") if value.get("rewards") else None
    return CompoundAddresses(rewards, tuple(markets))


def _pendle(value: Any, where: str) -> PendleAddresses:
    value = _object(value, where)
    return PendleAddresses(
        _deployments(value.get("marketFactories", []), f"{where} marketFactories"),
        _deployments(value.get("yieldContractFactories", []), f"{where} yieldContractFactories"),
    )


def _lido(value: Any, where: str) -> LidoAddresses:
    value = _object(value, where)
    steth, wsteth, queue = (
        _address(value.get(field), f"{where} {field}") for field in ("stETH", "wstETH", "withdrawalQueue")
    )
    return LidoAddresses(steth, wsteth, queue, _period(value, where))


def _eigenlayer(value: Any, where: str) -> EigenlayerAddresses:
    value = _object(value, where)
    return EigenlayerAddresses(
        *(
            _address(value.get(field), f"{where} {field}")
            for field in ("strategyManager", "delegationManager", "eigenPodManager")
        )
    )


def _balancer(value: Any, where: str) -> BalancerAddresses:
    value = _object(value, where)
    return BalancerAddresses(
        _deployment(value.get("v2Vault"), f"{where} v2Vault"),
        _deployments(value.get("gaugeFactories", []), f"{where} gaugeFactories"),
        _address(value["bal"], f"{where} bal") if "bal" in value else None,
        _deployment(value["v3Vault"], f"{where} v3Vault") if "v3Vault" in value else None,
    )


def _aura(value: Any, where: str) -> AuraAddresses:
    value = _object(value, where)
    return AuraAddresses(
        _address(value.get("booster"), f"{where} booster"),
        _address(value.get("aura"), f"{where} aura"),
        tuple(_address(older, f"{where} olderBoosters") for older in _list(value.get("olderBoosters", []), where)),
        _address(value["l2Coordinator"], f"{where} l2Coordinator") if "l2Coordinator" in value else None,
    )


def _uniswap(value: Any, where: str) -> UniswapAddresses:
    value = _object(value, where)
    v3 = v4 = None
    if "v3" in value:
        section = _object(value["v3"], f"{where} v3")
        v3 = UniswapV3Addresses(
            *(_address(section.get(field), f"{where} v3 {field}") for field in ("factory", "positionManager"))
        )
    if "v4" in value:
        section = _object(value["v4"], f"{where} v4")
        v4 = UniswapV4Addresses(
            _address(section.get("poolManager"), f"{where} v4 poolManager"),
            _deployment(section.get("positionManager"), f"{where} v4 positionManager"),
            _address(section.get("stateView"), f"{where} v4 stateView"),
        )
    if v3 is None and v4 is None:
        raise AddressesError(f"{where}: must have a v3 or a v4 section")
    return UniswapAddresses(v3, v4)


def _maker(value: Any, where: str) -> MakerAddresses:
    return MakerAddresses(_deployment(_object(value, where).get("chainLog"), f"{where} chainLog"))


def _euler(value: Any, where: str) -> EulerAddresses:
    value = _object(value, where)
    return EulerAddresses(
        _address(value.get("evc"), f"{where} evc"), _deployment(value.get("eVaultFactory"), f"{where} eVaultFactory")
    )


def _curve(value: Any, where: str) -> CurveAddresses:
    value = _object(value, where)
    factories = _object(value.get("factories"), f"{where} factories")
    unknown = factories.keys() - CURVE_FACTORY_KINDS.keys()
    if unknown:
        raise AddressesError(f"{where} factories: {sorted(unknown)} not among {sorted(CURVE_FACTORY_KINDS)}")
    children = _object(value.get("childGaugeFactories", {}), f"{where} childGaugeFactories")
    if list(children) not in ([], ["child_gauge_factory"], ["child_gauge_factory", "child_gauge_factory_old"]):
        raise AddressesError(f"{where} childGaugeFactories: child_gauge_factory, then child_gauge_factory_old")
    return CurveAddresses(
        _address(value["crv"], f"{where} crv") if "crv" in value else None,
        tuple(
            CurveFactory(name, _address(address, f"{where} factories {name}"), CURVE_FACTORY_KINDS[name])
            for name, address in factories.items()
        ),
        tuple(_address(address, f"{where} childGaugeFactories {name}") for name, address in children.items()),
        _address(value["addressProvider"], f"{where} addressProvider") if "addressProvider" in value else None,
    )


def _convex(value: Any, where: str) -> ConvexAddresses:
    value = _object(value, where)
    return ConvexAddresses(*(_address(value.get(field), f"{where} {field}") for field in ("booster", "cvx", "crv")))


def _accounts(value: Any, where: str) -> AccountsAddresses:
    value = _object(value, where)
    registries, dfs = (
        _list(value.get(name, []), f"{where} {name}") for name in ("proxyRegistries", "dfsProxyRegistries")
    )
    dpm = value.get("summerDpm")
    if dpm is not None:
        dpm = _object(dpm, f"{where} summerDpm")
        dpm = SummerDpm(
            *(_deployment(dpm.get(name), f"{where} summerDpm {name}") for name in ("accountFactory", "accountGuard"))
        )
    return AccountsAddresses(
        tuple(_address(registry, f"{where} proxyRegistries") for registry in registries),
        _address(value["instaList"], f"{where} instaList") if value.get("instaList") else None,
        dpm,
        tuple(_address(registry, f"{where} dfsProxyRegistries") for registry in dfs),
    )


def _etherfi(value: Any, where: str) -> EtherfiAddresses:
    value = _object(value, where)
    eeth, weeth, pool = (_address(value.get(name), f"{where} {name}") for name in ("eETH", "weETH", "liquidityPool"))
    nft = _deployment(value.get("withdrawRequestNFT"), f"{where} withdrawRequestNFT")
    return EtherfiAddresses(eeth, weeth, pool, nft, _period(value, where))


def _rocketpool(value: Any, where: str) -> RocketPoolAddresses:
    value = _object(value, where)
    return RocketPoolAddresses(_address(value.get("rETH"), f"{where} rETH"), _period(value, where))


def _renzo(value: Any, where: str) -> RenzoAddresses:
    value = _object(value, where)
    ezeth, manager = (_address(value.get(name), f"{where} {name}") for name in ("ezETH", "restakeManager"))
    return RenzoAddresses(ezeth, manager, _period(value, where))


def _kelp(value: Any, where: str) -> KelpAddresses:
    value = _object(value, where)
    names = ("rsETH", "lrtOracle", "lrtConfig", "withdrawalManager")
    rseth, oracle, config, manager = (_address(value.get(name), f"{where} {name}") for name in names)
    return KelpAddresses(rseth, oracle, config, manager, _period(value, where))


def _period(value: dict[str, Any], where: str) -> int:
    """A section's `apyPeriodDays` (7 by default), in seconds."""
    days = value.get("apyPeriodDays", 7)
    if not isinstance(days, int) or isinstance(days, bool) or days <= 0:
        raise AddressesError(f"{where}: apyPeriodDays must be a positive number of days")
    return days * 24 * 3600


def _fluid(value: Any, where: str) -> FluidAddresses:
    value = _object(value, where)
    return FluidAddresses(
        *(_address(value.get(field), f"{where} {field}") for field in ("lendingResolver", "vaultResolver"))
    )


def _vault_style(value: Any, where: str) -> VaultStyleAddresses:
    value = _object(value, where)
    period = _period(value, where)
    vaults = []
    for index, vault in enumerate(_list(value.get("vaults", []), f"{where} vaults")):
        here = f"{where} vaults[{index}]"
        vault = _object(vault, here)
        rate = vault.get("rate")
        if rate not in (None, *SAVINGS_RATES):
            raise AddressesError(f"{here}: rate must be one of {', '.join(SAVINGS_RATES)} (or left out)")
        vaults.append(
            ShareVault(_kind(vault, here), _address(vault.get("address"), here), vault.get("cooldown") is True, rate)
        )
    tokens = []
    for index, token in enumerate(_list(value.get("tokens", []), f"{where} tokens")):
        here = f"{where} tokens[{index}]"
        token = _object(token, here)
        currency = str(token.get("currency", "USD"))
        feed = _feed({"pair": f"{token.get('symbol', '')}/{currency}", **token}, here)
        tokens.append(PricedToken(_kind(token, here), _address(token.get("token"), here), feed, currency))
    return VaultStyleAddresses(tuple(vaults), tuple(tokens), period)


def _kind(value: dict[str, Any], where: str) -> str:
    kind = value.get("type")
    if not isinstance(kind, str) or not kind:
        raise AddressesError(f"{where}: must have a type (the positions' `type`)")
    return kind


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise AddressesError(f"{where}: must be a list")
    return value


def _deployments(value: Any, where: str) -> tuple[Deployment, ...]:
    return tuple(_deployment(item, f"{where}[{index}]") for index, item in enumerate(_list(value, where)))


def _deployment(value: Any, where: str) -> Deployment:
    if not isinstance(value, dict):
        raise AddressesError(f"{where}: must be an object with address and startBlock")
    block = value.get("startBlock")
    if not isinstance(block, int) or isinstance(block, bool) or block < 0:
        raise AddressesError(f"{where}: startBlock must be a block number")
    return Deployment(_address(value.get("address"), where), block)


def _feed(value: Any, where: str) -> PriceFeed:
    if not isinstance(value, dict):
        raise AddressesError(f"{where}: must be an object with pair, feed and heartbeat")
    heartbeat = value.get("heartbeat")
    if not isinstance(heartbeat, int) or isinstance(heartbeat, bool) or heartbeat <= 0:
        raise AddressesError(f"{where}: heartbeat must be a positive number of seconds")
    return PriceFeed(str(value.get("pair", "")), _address(value.get("feed"), where), heartbeat)


def _address(value: Any, where: str) -> str:
    if not isinstance(value, str) or not _ADDRESS.fullmatch(value):
        raise AddressesError(f"{where}: {str(value)[:50]!r} is not an address (0x + 40 hex)")
    return value.lower()
