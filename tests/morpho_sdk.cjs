// Morpho's own SDK (@morpho-org/blue-sdk, pinned in tools/) as a test oracle: reads a JSON list of
// requests on stdin, answers a JSON list on stdout. Integers travel as decimal strings.
"use strict";
const sdk = require(process.argv[2] + "/@morpho-org/blue-sdk");

const handlers = {
  irm({ utilization, rateAtTarget, elapsed }) {
    const rates = sdk.AdaptiveCurveIrmLib.getBorrowRate(BigInt(utilization), BigInt(rateAtTarget), BigInt(elapsed));
    return { average: String(rates.avgBorrowRate), end: String(rates.endBorrowRate),
             endRateAtTarget: String(rates.endRateAtTarget) };
  },
  market({ params, totals, rateAtTarget, timestamp }) {
    const [totalSupplyAssets, totalSupplyShares, totalBorrowAssets, totalBorrowShares, lastUpdate, fee] =
      totals.map(BigInt);
    const market = new sdk.Market({
      params: new sdk.MarketParams({ loanToken: params[0], collateralToken: params[1], oracle: params[2],
                                     irm: params[3], lltv: BigInt(params[4]) }),
      totalSupplyAssets, totalBorrowAssets, totalSupplyShares, totalBorrowShares, lastUpdate, fee,
      rateAtTarget: rateAtTarget == null ? undefined : BigInt(rateAtTarget),
    });
    const at = BigInt(timestamp);
    return { borrowApy: market.getBorrowApy(at), supplyApy: market.getSupplyApy(at),
             endBorrowRate: String(market.getEndBorrowRate(at)) };
  },
};

let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const answers = JSON.parse(input).map(({ kind, ...request }) => handlers[kind](request));
  process.stdout.write(JSON.stringify(answers));
});
