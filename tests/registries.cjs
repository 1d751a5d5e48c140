// The protocols' own published address registries (pinned in tools/) as test oracles: reads a
// JSON list of registry names on stdin and answers, for each, what the package publishes.
// - "aave": every Aave v3 and v2 market of @bgd-labs/aave-address-book (Aave's address book), by
//   name: chain id, version, Pool, PoolAddressesProvider, AaveProtocolDataProvider, AaveOracle.
// - "chainlink": the Chainlink feeds of the same address book (its Chainlink<Chain> files), by
//   chain id: every feed address it lists, lower case.
// - "morpho": Morpho's registry in @morpho-org/morpho-ts, by chain id: Morpho Blue, the
//   MetaMorpho (v1.1) and Vault V2 factories with their deployment blocks, the AdaptiveCurveIrm.
// - "lido": the ABIs Lido publishes in @lidofinance/lido-ethereum-sdk (stETH, wstETH, the
//   withdrawal queue), by contract: each function's signature -> its output types.
// - "uniswap": by chain id, Uniswap v3's factory and position manager and v4's PoolManager,
//   PositionManager and StateView, from Uniswap's own CHAIN_TO_ADDRESSES_MAP (@uniswap/sdk-core).
// - "chainlinkNamed": by chain id, the same address book's Chainlink feeds by their names there
//   (`USDC__USD`, `Calculated_mETH__USD`, `L2_Sequencer_Uptime_Status_Feed`, ...) and the
//   underlying token of every Aave v3 reserve on the chain by Aave's symbol for it.
"use strict";

const requests = JSON.parse(require("fs").readFileSync(0, "utf8"));

function aave() {
  const book = require(process.argv[2] + "/@bgd-labs/aave-address-book");
  const markets = {};
  for (const [name, market] of Object.entries(book)) {
    const version = name.startsWith("AaveV3") ? 3 : name.startsWith("AaveV2") ? 2 : undefined;
    if (!version || !market || !market.POOL || market.CHAIN_ID === undefined) continue;
    markets[name] = {
      chainId: market.CHAIN_ID,
      version,
      pool: market.POOL,
      addressesProvider: market.POOL_ADDRESSES_PROVIDER,
      dataProvider: market.AAVE_PROTOCOL_DATA_PROVIDER,
      oracle: market.ORACLE,
    };
  }
  return markets;
}

function chainlink() {
  const book = require(process.argv[2] + "/@bgd-labs/aave-address-book");
  const chains = {};
  for (const [name, feeds] of Object.entries(book)) {
    if (!name.startsWith("Chainlink") || !feeds || feeds.CHAIN_ID === undefined) continue;
    chains[feeds.CHAIN_ID] = Object.values(feeds)
      .filter((value) => typeof value === "string")
      .map((value) => value.toLowerCase());
  }
  return chains;
}

function morpho() {
  const ts = require(process.argv[2] + "/@morpho-org/morpho-ts");
  const chains = {};
  for (const [id, listed] of Object.entries(ts.addresses)) {
    const blocks = ts.deployments[id] || {};
    const at = (name) => (listed[name] ? { address: listed[name], startBlock: Number(blocks[name]) } : null);
    chains[id] = {
      blue: at("morpho"),
      vaultV1Factory: at("metaMorphoFactory"),
      vaultV2Factory: at("vaultV2Factory"),
      adaptiveCurveIrm: listed.adaptiveCurveIrm || null,
    };
  }
  return chains;
}

function lido() {
  const sdk = process.argv[2] + "/@lidofinance/lido-ethereum-sdk/dist/cjs/";
  const type = (p) => (p.type.startsWith("tuple") ? "(" + p.components.map(type).join(",") + ")" + p.type.slice(5) : p.type);
  const functions = (abi) =>
    Object.fromEntries(
      abi.filter((e) => e.type === "function").map((e) => [`${e.name}(${e.inputs.map(type).join(",")})`, e.outputs.map(type)])
    );
  return {
    stETH: functions(require(sdk + "core/abi/lido.js").LidoAbi),
    wstETH: functions(require(sdk + "wrap/abi/wsteth.js").WstethABI),
    withdrawalQueue: functions(require(sdk + "withdraw/abi/withdrawalQueue.js").WithdrawalQueueAbi),
  };
}

function uniswap() {
  const { CHAIN_TO_ADDRESSES_MAP } = require(process.argv[2] + "/@uniswap/sdk-core");
  return Object.fromEntries(
    Object.entries(CHAIN_TO_ADDRESSES_MAP)
      .filter(([, a]) => a.v3CoreFactoryAddress && a.nonfungiblePositionManagerAddress)
      .map(([chain, a]) => [
        chain,
        {
          v3: { factory: a.v3CoreFactoryAddress, positionManager: a.nonfungiblePositionManagerAddress },
          v4: a.v4PoolManagerAddress
            ? { poolManager: a.v4PoolManagerAddress, positionManager: a.v4PositionManagerAddress, stateView: a.v4StateView }
            : null,
        },
      ])
  );
}

function chainlinkNamed() {
  const book = require(process.argv[2] + "/@bgd-labs/aave-address-book");
  const chains = {};
  const chain = (id) => (chains[id] = chains[id] || { feeds: {}, tokens: {} });
  for (const [name, feeds] of Object.entries(book)) {
    if (!name.startsWith("Chainlink") || !feeds || feeds.CHAIN_ID === undefined) continue;
    for (const [key, value] of Object.entries(feeds)) if (typeof value === "string") chain(feeds.CHAIN_ID).feeds[key] = value;
  }
  for (const [name, market] of Object.entries(book)) {
    if (!name.startsWith("AaveV3") || !market || !market.ASSETS || market.CHAIN_ID === undefined) continue;
    for (const [symbol, asset] of Object.entries(market.ASSETS)) chain(market.CHAIN_ID).tokens[symbol] = asset.UNDERLYING;
  }
  return chains;
}

const registries = { aave, chainlink, morpho, lido, uniswap, chainlinkNamed };
process.stdout.write(JSON.stringify(requests.map((name) => registries[name]())));
