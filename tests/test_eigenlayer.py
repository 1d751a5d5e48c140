"""EigenLayer against test contracts with the views of EigenLayer's published ABI
(tests/eigenlayer_world.py): every figure equals what the contracts' own views return at the
answer's block, the completable flag is what a completion simulated at that block meets, the
addresses are EigenLayer's published deployment, and a query costs one RPC round trip."""

from __future__ import annotations

import asyncio
import json
import logging
from fractions import Fraction
from pathlib import Path
from typing import Any

import eth_abi
from eth_hash.auto import keccak

import addresses
import protocols
import server
from adapters.eigenlayer import contracts as eigenlayer
from adapters.eigenlayer.section import EIGENLAYER
from chain.abi import Event
from tests import eigenlayer_world as E
from tests.conftest import query_positions, world_api, world_fixture
from tests.evm import abi_type, functions_of, selector

QUERY = """query($inputs: [PositionInput!]!) { walletPositions(inputs: $inputs) {
  data { ... on EigenlayerWalletPositions { protocol walletAddress chainId blockNumber warnings { code message target }
    operator
    restakedPositions { strategy token { address symbol name decimals } depositShares withdrawableShares amount
      amountUsd }
    queuedWithdrawals { withdrawalRoot nonce delegatedTo startBlock completableFromBlock completable
      strategies { strategy token { address symbol decimals } scaledShares shares amount amountUsd } }
    eigenPod { address depositShares withdrawableShares restakedEth restakedEthUsd
      withdrawableRestakedExecutionLayerGwei } } }
  errors { error { code message } } } }"""
ABI = json.loads(Path(__file__).with_name("eigenlayer_abi.json").read_text())
ZERO = "0x" + "00" * 20

world = world_fixture(E.build)


async def answer(api: Any, wallet: str) -> dict[str, Any]:
    found = await query_positions(api, QUERY, "eigenlayer", [wallet], 31337)
    assert found["errors"] == []
    (entry,) = found["data"]
    assert len(entry["warnings"]) <= 1 and all(
        w["code"] == "PRICE_UNAVAILABLE" and "names no USD feed for" in w["message"] for w in entry["warnings"]
    ), "tEIGEN's missing feed, named; nothing else"
    return dict(entry)


def view(world: Any, block: int, target: str, signature: str, *args: Any, returns: tuple[str, ...]) -> Any:
    return world.node.call(target, signature, *args, returns=returns, block=block)


def usd(amount: int, answer: int) -> float:
    return float(Fraction(amount * answer, 10 ** (18 + 8)))


async def test_restaked_shares_with_slashing_applied_and_the_operator(world_client, world):
    entry = await answer(world_client, world.wallets["staker"])
    block = entry["blockNumber"]
    strategies, deposits = view(
        world,
        block,
        world.strategy_manager,
        "getDeposits(address)",
        world.wallets["staker"],
        returns=("address[]", "uint256[]"),
    )
    withdrawable, deposit_shares = view(
        world,
        block,
        world.delegation_manager,
        "getWithdrawableShares(address,address[])",
        world.wallets["staker"],
        list(strategies),
        returns=("uint256[]", "uint256[]"),
    )
    assert list(deposit_shares) == list(deposits)
    assert [s.lower() for s in strategies] == [world.strategies["eLST"], world.strategies["tEIGEN"]]
    lst, eigen = withdrawable
    assert lst == deposits[0] and eigen < deposits[1], "tEIGEN's operator was slashed"
    amounts = [
        view(world, block, strategy, "sharesToUnderlyingView(uint256)", shares, returns=("uint256",))
        for strategy, shares in zip(strategies, withdrawable)
    ]
    assert entry["operator"] == world.operator
    assert entry["restakedPositions"] == [
        {
            "strategy": world.strategies["eLST"],
            "token": {"address": world.tokens["eLST"], "symbol": "eLST", "name": "EigenLayer Test LST", "decimals": 18},
            "depositShares": str(deposits[0]),
            "withdrawableShares": str(lst),
            "amount": str(amounts[0]),
            "amountUsd": usd(amounts[0], E.LST_USD),
        },
        {
            "strategy": world.strategies["tEIGEN"],
            "token": {"address": world.tokens["tEIGEN"], "symbol": "tEIGEN", "name": "Test EIGEN", "decimals": 18},
            "depositShares": str(deposits[1]),
            "withdrawableShares": str(eigen),
            "amount": str(amounts[1]),
            "amountUsd": None,
        },
    ]
    _, balance, deposit, (scaling, slashing) = E.STRATEGIES["tEIGEN"]
    assert eigen == deposit * scaling // E.WAD * slashing // E.WAD
    assert amounts[1] == (balance + 1000) * eigen // (E.STRATEGIES["tEIGEN"][0] + 1000)
    assert entry["eigenPod"] is None


def completes(world: Any, withdrawal: tuple[Any, ...], block: int, number: int | None = None) -> bool:
    """Whether `completeQueuedWithdrawal` called by its staker on the state of `block` passes the
    delay check (with `block.number` overridden to `number` where given: a later block's check),
    receiving the shares back (no token moves: the world's set withdrawals hold none)."""
    call = {
        "from": withdrawal[0],
        "to": world.delegation_manager,
        "data": "0x"
        + (
            selector(f"completeQueuedWithdrawal({E.WITHDRAWAL},address[],bool)")
            + eth_abi.encode([E.WITHDRAWAL, "address[]", "bool"], [withdrawal, [ZERO] * len(withdrawal[5]), False])
        ).hex(),
    }
    overrides = () if number is None else ({}, {"number": hex(number)})
    try:
        world.node.rpc("eth_call", call, hex(block), *overrides)
    except RuntimeError as exc:
        assert "revert" in str(exc)
        return False
    return True


async def test_queued_withdrawals_with_the_block_they_complete_from(world_client, world):
    entry = await answer(world_client, world.wallets["staker"])
    block = entry["blockNumber"]
    withdrawals, shares = view(
        world,
        block,
        world.delegation_manager,
        "getQueuedWithdrawals(address)",
        world.wallets["staker"],
        returns=(f"{E.WITHDRAWAL}[]", "uint256[][]"),
    )
    delay = view(world, block, world.delegation_manager, "minWithdrawalDelayBlocks()", returns=("uint32",))
    assert delay == E.DELAY
    found = entry["queuedWithdrawals"]
    assert len(found) == len(withdrawals) == 2
    for got, withdrawal, paid in zip(found, withdrawals, shares):
        root = view(
            world,
            block,
            world.delegation_manager,
            f"calculateWithdrawalRoot({E.WITHDRAWAL})",
            withdrawal,
            returns=("bytes32",),
        )
        start = withdrawal[4]
        assert got["withdrawalRoot"] == "0x" + root.hex()
        assert (got["nonce"], got["delegatedTo"], got["startBlock"]) == (str(withdrawal[3]), world.operator, start)
        assert got["completableFromBlock"] == start + delay + 1
        assert got["completable"] is completes(world, withdrawal, block)
        first = got["completableFromBlock"]
        assert completes(world, withdrawal, block, first) and not completes(world, withdrawal, block, first - 1)
        legs = []
        for strategy, scaled, amount in zip(withdrawal[5], withdrawal[6], paid):
            underlying = view(world, block, strategy, "sharesToUnderlyingView(uint256)", amount, returns=("uint256",))
            symbol = "eLST" if strategy.lower() == world.strategies["eLST"] else "tEIGEN"
            legs.append(
                {
                    "strategy": strategy.lower(),
                    "token": {"address": world.tokens[symbol], "symbol": symbol, "decimals": 18},
                    "scaledShares": str(scaled),
                    "shares": str(amount),
                    "amount": str(underlying),
                    "amountUsd": usd(underlying, E.LST_USD) if symbol == "eLST" else None,
                }
            )
        assert got["strategies"] == legs
    done, waiting = found
    assert done["completable"] and not waiting["completable"], "one past the delay, one not yet"
    slashed = waiting["strategies"][0]
    assert int(slashed["shares"]) < int(slashed["scaledShares"]), "the slashing applies to the queued shares"


async def test_a_pod_owners_native_restaked_eth(world_client, world):
    entry = await answer(world_client, world.wallets["restaker"])
    block = entry["blockNumber"]
    restaker = world.wallets["restaker"]
    pod = view(world, block, world.pod_manager, "ownerToPod(address)", restaker, returns=("address",)).lower()
    shares = view(world, block, world.pod_manager, "podOwnerDepositShares(address)", restaker, returns=("int256",))
    (withdrawable,), (deposit,) = view(
        world,
        block,
        world.delegation_manager,
        "getWithdrawableShares(address,address[])",
        restaker,
        [E.BEACON],
        returns=("uint256[]", "uint256[]"),
    )
    gwei = view(world, block, pod, "withdrawableRestakedExecutionLayerGwei()", returns=("uint64",))
    assert (shares, deposit, gwei) == (E.POD_SHARES, E.POD_SHARES, E.POD_GWEI)
    assert withdrawable == E.POD_SHARES * E.POD_SLASHING // E.WAD < deposit
    assert entry["operator"] is None
    assert entry["restakedPositions"] == []
    assert entry["eigenPod"] == {
        "address": pod,
        "depositShares": str(shares),
        "withdrawableShares": str(withdrawable),
        "restakedEth": str(withdrawable),
        "restakedEthUsd": usd(withdrawable, E.ETH_USD),
        "withdrawableRestakedExecutionLayerGwei": str(gwei),
    }
    (queued,) = entry["queuedWithdrawals"]
    (leg,) = queued["strategies"]
    assert queued["completable"] and queued["delegatedTo"] is None
    assert leg == {
        "strategy": E.BEACON,
        "token": {"address": "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", "symbol": "ETH", "decimals": 18},
        "scaledShares": str(3 * E.ETHER),
        "shares": str(3 * E.ETHER * E.POD_SLASHING // E.WAD),
        "amount": str(3 * E.ETHER * E.POD_SLASHING // E.WAD),
        "amountUsd": usd(3 * E.ETHER * E.POD_SLASHING // E.WAD, E.ETH_USD),
    }


POOL = """query($inputs: [PoolInput!]!) { poolDetails(inputs: $inputs) {
  data { poolAddress blockNumber warnings { code message target } details { ... on EigenlayerStrategyPool {
    type strategyAddress chainId underlyingToken { address symbol } totalShares totalUnderlying totalUnderlyingUsd } } }
  errors { poolAddress error { code message } } } }"""


async def test_each_strategy_as_a_pool_holds_its_total_shares_in_its_token(world_client, world):
    """Each whitelisted strategy: its total shares, what they hold by sharesToUnderlyingView and
    in USD (tEIGEN has no feed: null, named); the beacon chain ETH strategy, a token and a
    strategy the StrategyManager does not whitelist are refused."""
    stray = world.node.deploy(E.compile_all()["TestStrategy"], ["address"], [world.tokens["eLST"]])
    asked = [*world.strategies.values(), E.BEACON, world.tokens["eLST"], stray]
    inputs = [{"protocol": "eigenlayer", "chainId": 31337, "poolAddress": pool} for pool in asked]
    reply = await world_client.query(POOL, {"inputs": inputs})
    found = reply.body["data"]["poolDetails"]
    assert [e["error"]["code"] for e in found["errors"]] == ["VALIDATION_ERROR"] * 3
    assert "beacon chain ETH strategy" in found["errors"][0]["error"]["message"]
    assert all("not a strategy EigenLayer's StrategyManager" in e["error"]["message"] for e in found["errors"][1:])
    for entry, (symbol, (total, balance, _, _)) in zip(found["data"], E.STRATEGIES.items()):
        strategy = world.strategies[symbol]
        underlying = view(
            world, entry["blockNumber"], strategy, "sharesToUnderlyingView(uint256)", total, returns=("uint256",)
        )
        assert underlying == (balance + 1_000) * total // (total + 1_000)
        priced = symbol == "eLST"
        assert entry["details"] == {
            "type": "eigenlayer-strategy-pool",
            "strategyAddress": strategy,
            "chainId": 31337,
            "underlyingToken": {"address": world.tokens[symbol], "symbol": symbol},
            "totalShares": str(total),
            "totalUnderlying": str(underlying),
            "totalUnderlyingUsd": usd(underlying, E.LST_USD) if priced else None,
        }, symbol
        assert [w["code"] for w in entry["warnings"]] == ([] if priced else ["PRICE_UNAVAILABLE"]), symbol


async def test_a_wallet_with_nothing(world_client, world):
    entry = await answer(world_client, world.wallets["empty"])
    assert entry["operator"] is None and entry["eigenPod"] is None
    assert entry["restakedPositions"] == entry["queuedWithdrawals"] == []


async def test_a_query_is_one_round_trip(aiohttp_client, keys_file, api_key, world, tmp_path, caplog):
    """With the head followed (the block pinned without a request), each wallet's whole answer is
    one RPC request: its lens."""
    api = await world_api(
        aiohttp_client,
        keys_file,
        api_key,
        world.write_addresses(tmp_path / "a.json"),
        world.node,
        head_poll_seconds=0.05,
    )
    await answer(api, world.wallets["empty"])
    caplog.set_level(logging.INFO, logger="wallet_positions.access")
    follower = api.app[server.CHAINS].follower(world.node.chain_id)
    for role in ("staker", "restaker", "empty"):
        world.node.mine()
        for _ in range(400):
            if follower.head is not None and follower.head.number == world.node.block_number():
                break
            await asyncio.sleep(0.01)
        caplog.clear()
        await answer(api, world.wallets[role])
        (line,) = [r.fields for r in caplog.records if r.name == "wallet_positions.access"]
        assert line["rpc_requests"] == 1, (role, line)


def test_the_adapter_reads_eigenlayers_published_abi():
    """Each view the adapter calls: its selector, inputs and output types as EigenLayer's published
    ABI (its Go bindings at the recorded commit) declares them, and its output names where the
    ABI names them."""
    contracts = {
        "GET_DEPOSITS": "StrategyManager",
        "DELEGATED_TO": "DelegationManager",
        "WITHDRAWABLE_SHARES": "DelegationManager",
        "QUEUED_WITHDRAWALS": "DelegationManager",
        "MIN_WITHDRAWAL_DELAY_BLOCKS": "DelegationManager",
        "OWNER_TO_POD": "EigenPodManager",
        "POD_OWNER_DEPOSIT_SHARES": "EigenPodManager",
        "WITHDRAWABLE_RESTAKED_GWEI": "EigenPod",
        "UNDERLYING_TOKEN": "StrategyBase",
        "SHARES_TO_UNDERLYING": "StrategyBase",
        "TOTAL_SHARES": "StrategyBase",
        "WHITELISTED_FOR_DEPOSIT": "StrategyManager",
        "QUEUED_WITHDRAWAL": "DelegationManager",
    }
    functions = functions_of(eigenlayer)
    assert set(functions) == set(contracts)
    for name, function in functions.items():
        published = ABI["functions"][contracts[name]][function.signature]
        assert "0x" + function.selector == published["selector"] == "0x" + selector(function.signature).hex(), name
        assert function.output_types == published["outputs"], name
        ours = [output.rsplit(" ", 1)[-1] if " " in output else "" for output in function.outputs]
        assert all(not theirs or theirs == mine for mine, theirs in zip(ours, published["names"])), name
    fields = ABI["structs"]["Withdrawal"]
    assert "(" + ",".join(f"{kind} {name}" for name, kind in fields) + ")" == eigenlayer.WITHDRAWAL
    assert "(" + ",".join(kind for _, kind in fields) + ")" == eigenlayer.WITHDRAWAL_TYPES
    assert ABI["beaconChainETHStrategy"].lower() == eigenlayer.BEACON_CHAIN_ETH


EMITTERS = {
    "DEPOSIT": "StrategyManager",
    "WITHDRAWAL_QUEUED": "DelegationManager",
    "WITHDRAWAL_COMPLETED": "DelegationManager",
    "POD_SHARES_UPDATED": "EigenPodManager",
    "CHECKPOINT_FINALIZED": "EigenPod",
}
"""The events the flows read (adapters/eigenlayer/contracts.py) and the contract that emits each."""


def test_the_flows_read_eigenlayers_published_events():
    """Each event the flows decode: its signature and topic as EigenLayer's published ABI (its Go
    bindings at the recorded commit) declares it, and the fields it indexes as the flows assume
    (`INDEXED`: no staker in a topic of the StrategyManager's or the DelegationManager's)."""
    events = {name: value for name, value in vars(eigenlayer).items() if isinstance(value, Event)}
    assert set(events) == set(EMITTERS) == {name for name, event in events.items() if event in eigenlayer.INDEXED}
    for name, event in events.items():
        published = ABI["events"][EMITTERS[name]][event.signature]
        assert event.topic == published["topic"] == "0x" + keccak(event.signature.encode()).hex(), name
        indexed = tuple(field for field, flag in zip(published["names"], published["indexed"]) if flag)
        assert eigenlayer.INDEXED[event] == indexed, name


def test_the_test_contracts_emit_eigenlayers_published_events():
    """The world's contracts declare each event the flows read as EigenLayer's do: the same
    parameters, names and indexed fields (tests/contracts/TestEigenLayer.sol emits them from its
    entry points as mainnet's contracts do)."""
    artifacts = E.compile_all()
    for contract, events in ABI["events"].items():
        abi = artifacts[f"Test{contract}"].abi
        for signature, published in events.items():
            name = signature.split("(", 1)[0]
            (declared,) = [item for item in abi if item["type"] == "event" and item["name"] == name]
            inputs = declared["inputs"]
            assert f"{name}({','.join(abi_type(item) for item in inputs)})" == signature, (contract, name)
            assert [item["name"] for item in inputs] == published["names"], (contract, name)
            assert [item["indexed"] for item in inputs] == published["indexed"], (contract, name)


def test_the_addresses_are_eigenlayers_published_deployment():
    """Ethereum's StrategyManager, DelegationManager and EigenPodManager are the proxies EigenLayer's
    README lists under "Deployments" (Layr-Labs/eigenlayer-contracts at the recorded commit), the
    same as script/configs/mainnet.json there; and no other chain has an EigenLayer section. Its
    `startBlock` is the `deploymentBlock` of EigenLayer's M1 output that deployed all three
    (script/output/mainnet/M1_deployment_mainnet_2023_6_9.json at f063b61d, docs/protocols/eigenlayer.md)."""
    built = json.loads(addresses.BUILT_IN.read_text())
    section = dict(built["1"]["eigenlayer"])
    assert section.pop("startBlock") == 17445559 and section == ABI["mainnet"]
    assert [chain for chain, value in built.items() if "eigenlayer" in value] == ["1"]
    loaded = EIGENLAYER.of(protocols.load_addresses()[1])
    assert loaded is not None and loaded.delegation_manager == ABI["mainnet"]["delegationManager"].lower()


async def test_a_strategy_whose_views_fail_is_listed_with_its_figures_null_and_a_warning(world_client, world):
    """A strategy whose token is no contract (its sharesToUnderlyingView reverts): its shares are
    listed, its token, amount and USD null, and the answer says why."""
    wallet, broken = world.node.accounts[18], world.node.deploy(E.compile_all()["TestStrategy"], ["address"], [ZERO])
    world.node.send(world.strategy_manager, "setDeposit(address,address,uint256)", wallet, broken, E.ETHER)
    found = await query_positions(world_client, QUERY, "eigenlayer", [wallet], 31337)
    (entry,) = found["data"]
    assert entry["restakedPositions"] == [
        {
            "strategy": broken,
            "token": None,
            "depositShares": str(E.ETHER),
            "withdrawableShares": str(E.ETHER),
            "amount": None,
            "amountUsd": None,
        }
    ]
    (warning,) = entry["warnings"]
    assert (warning["code"], warning["target"]) == ("FIGURE_UNAVAILABLE", broken)
    assert "token, amount and amountUsd are null" in warning["message"]
