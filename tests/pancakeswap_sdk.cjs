// PancakeSwap's own SDK (@pancakeswap/v3-sdk, pinned in tools/sdk) as a test oracle: reads a JSON
// list of v3 positions with their pool's state as read from the chain (as uniswap_sdk.cjs takes
// them), and answers, per position, what the SDK says: Position.amount0/amount1, tickToPrice at
// both ends and the pool's token0Price (each as the numerator and denominator of whole token1 per
// whole token0), and the uncollected fees (TickLibrary.getFeeGrowthInside,
// PositionLibrary.getTokensOwed, plus the stored tokensOwed). The SDK counts in bigint.
"use strict";

const tools = process.argv[2];
const { Token } = require(tools + "/@pancakeswap/swap-sdk-core");
const { Pool, Position, PositionLibrary, TickLibrary, tickToPrice } = require(tools + "/@pancakeswap/v3-sdk");

function decimal(price) {
  const adjusted = price.adjustedForDecimals;
  return { numerator: adjusted.numerator.toString(), denominator: adjusted.denominator.toString() };
}

function answer(item) {
  const token0 = new Token(item.chainId, item.token0.address, item.token0.decimals, "T0");
  const token1 = new Token(item.chainId, item.token1.address, item.token1.decimals, "T1");
  const pool = new Pool(token0, token1, item.fee, BigInt(item.sqrtPriceX96), BigInt(item.poolLiquidity), item.tick);
  const position = new Position({ pool, liquidity: item.liquidity, tickLower: item.tickLower, tickUpper: item.tickUpper });
  const [inside0, inside1] = TickLibrary.getFeeGrowthInside(
    { feeGrowthOutside0X128: BigInt(item.lower[0]), feeGrowthOutside1X128: BigInt(item.lower[1]) },
    { feeGrowthOutside0X128: BigInt(item.upper[0]), feeGrowthOutside1X128: BigInt(item.upper[1]) },
    item.tickLower,
    item.tickUpper,
    item.tick,
    BigInt(item.feeGrowthGlobal[0]),
    BigInt(item.feeGrowthGlobal[1]),
  );
  const [owed0, owed1] = PositionLibrary.getTokensOwed(
    BigInt(item.feeGrowthInsideLast[0]),
    BigInt(item.feeGrowthInsideLast[1]),
    BigInt(item.liquidity),
    inside0,
    inside1,
  );
  return {
    amount0: position.amount0.quotient.toString(),
    amount1: position.amount1.quotient.toString(),
    priceLower: decimal(tickToPrice(token0, token1, item.tickLower)),
    priceUpper: decimal(tickToPrice(token0, token1, item.tickUpper)),
    priceCurrent: decimal(pool.token0Price),
    fees0: (owed0 + BigInt(item.tokensOwed[0])).toString(),
    fees1: (owed1 + BigInt(item.tokensOwed[1])).toString(),
  };
}

const items = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(items.map(answer)));
