// Uniswap's own SDK (@uniswap/v3-sdk, pinned in tools/) as a test oracle: reads a JSON list of
// positions with their pool's state as read from the chain, and answers, per position, what the
// SDK says: Position.amount0/amount1, tickToPrice at both ends and the pool's token0Price (each
// as the numerator and denominator of whole token1 per whole token0), and the uncollected fees
// (TickLibrary.getFeeGrowthInside, PositionLibrary.getTokensOwed, plus the stored tokensOwed).
"use strict";

const tools = process.argv[2];
const JSBI = require(tools + "/jsbi");
const { Token } = require(tools + "/@uniswap/sdk-core");
const { Pool, Position, PositionLibrary, TickLibrary, tickToPrice } = require(tools + "/@uniswap/v3-sdk");

const big = (value) => JSBI.BigInt(value);

function decimal(price) {
  // Price's adjustedForDecimals (what its toSignificant prints): the raw ratio x 10^(decimals0 - decimals1).
  const adjusted = price.adjustedForDecimals;
  return { numerator: adjusted.numerator.toString(), denominator: adjusted.denominator.toString() };
}

function answer(item) {
  const token0 = new Token(item.chainId, item.token0.address, item.token0.decimals);
  const token1 = new Token(item.chainId, item.token1.address, item.token1.decimals);
  const pool = new Pool(token0, token1, item.fee, item.sqrtPriceX96, item.poolLiquidity, item.tick);
  const position = new Position({ pool, liquidity: item.liquidity, tickLower: item.tickLower, tickUpper: item.tickUpper });
  const [inside0, inside1] = TickLibrary.getFeeGrowthInside(
    { feeGrowthOutside0X128: big(item.lower[0]), feeGrowthOutside1X128: big(item.lower[1]) },
    { feeGrowthOutside0X128: big(item.upper[0]), feeGrowthOutside1X128: big(item.upper[1]) },
    item.tickLower,
    item.tickUpper,
    item.tick,
    big(item.feeGrowthGlobal[0]),
    big(item.feeGrowthGlobal[1]),
  );
  const [owed0, owed1] = PositionLibrary.getTokensOwed(
    big(item.feeGrowthInsideLast[0]),
    big(item.feeGrowthInsideLast[1]),
    big(item.liquidity),
    inside0,
    inside1,
  );
  return {
    amount0: position.amount0.quotient.toString(),
    amount1: position.amount1.quotient.toString(),
    priceLower: decimal(tickToPrice(token0, token1, item.tickLower)),
    priceUpper: decimal(tickToPrice(token0, token1, item.tickUpper)),
    priceCurrent: decimal(pool.token0Price),
    fees0: JSBI.add(owed0, big(item.tokensOwed[0])).toString(),
    fees1: JSBI.add(owed1, big(item.tokensOwed[1])).toString(),
  };
}

const items = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(items.map(answer)));
