// The protocols' own published address registries (pinned in tools/) as test oracles: reads a
// JSON list of registry names on stdin and answers, for each, what the package publishes.
// - "aave": every Aave v3 market of @bgd-labs/aave-address-book (Aave's address book), by name:
//   chain id, Pool, PoolAddressesProvider, AaveProtocolDataProvider, AaveOracle.
"use strict";

const requests = JSON.parse(require("fs").readFileSync(0, "utf8"));

function aave() {
  const book = require(process.argv[2] + "/@bgd-labs/aave-address-book");
  const markets = {};
  for (const [name, market] of Object.entries(book)) {
    if (!name.startsWith("AaveV3") || !market || !market.POOL || market.CHAIN_ID === undefined) continue;
    markets[name] = {
      chainId: market.CHAIN_ID,
      pool: market.POOL,
      addressesProvider: market.POOL_ADDRESSES_PROVIDER,
      dataProvider: market.AAVE_PROTOCOL_DATA_PROVIDER,
      oracle: market.ORACLE,
    };
  }
  return markets;
}

const registries = { aave };
process.stdout.write(JSON.stringify(requests.map((name) => registries[name]())));
