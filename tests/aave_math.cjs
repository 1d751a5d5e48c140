// Aave's own math library (@aave/math-utils, pinned in tools/) as a test oracle: reads a JSON list
// of requests on stdin. A decimal string is a ray annual rate, answered as formatReserve derives
// its supplyAPY / variableBorrowAPY (calculateCompoundedRate over a year, normalized from ray).
// An object is one reward on a reserve's aToken (side "a") or variable debt token (side "v"),
// answered with the incentiveAPR calculateAllReserveIncentives gives it; its fields are those
// the library reads from Aave's UiIncentiveDataProvider (raw units, decimal strings).
"use strict";

const math = require(process.argv[2] + "/@aave/math-utils");

function incentiveApr(r) {
  const reward = {
    emissionPerSecond: r.emissionPerSecond,
    rewardPriceFeed: r.rewardPriceFeed,
    priceFeedDecimals: r.priceFeedDecimals,
    rewardTokenDecimals: r.rewardTokenDecimals,
    emissionEndTimestamp: r.emissionEndTimestamp,
    incentivesLastUpdateTimestamp: r.incentivesLastUpdateTimestamp,
    rewardTokenAddress: "0x" + "11".repeat(20),
    rewardTokenSymbol: "RWD",
  };
  const asset = "0x" + "22".repeat(20);
  const found = math.calculateAllReserveIncentives({
    reserveIncentives: [{
      underlyingAsset: asset,
      aIncentiveData: { rewardsTokenInformation: r.side === "a" ? [reward] : [] },
      vIncentiveData: { rewardsTokenInformation: r.side === "v" ? [reward] : [] },
    }],
    reserves: [{
      underlyingAsset: asset,
      totalLiquidity: r.side === "a" ? r.totalTokenSupply : "0",
      totalVariableDebt: r.side === "v" ? r.totalTokenSupply : "0",
      formattedPriceInMarketReferenceCurrency: r.price,
      decimals: r.decimals,
    }],
    marketReferenceCurrencyDecimals: 8,
  })[asset];
  return (r.side === "a" ? found.aIncentives : found.vIncentives)[0].incentiveAPR;
}

const requests = JSON.parse(require("fs").readFileSync(0, "utf8"));
const answers = requests.map((request) =>
  typeof request === "string"
    ? math.normalize(math.calculateCompoundedRate({ rate: request, duration: math.SECONDS_PER_YEAR }), math.RAY_DECIMALS)
    : incentiveApr(request));
process.stdout.write(JSON.stringify(answers));
