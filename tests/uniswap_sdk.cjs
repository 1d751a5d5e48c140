// Uniswap's own SDKs (@uniswap/v3-sdk and @uniswap/v4-sdk, pinned in tools/) as test oracles, and
// PancakeSwap's (@pancakeswap/v3-sdk) for items with "sdk": "pancakeswap": reads a JSON list of
// positions with their pool's state as read from the chain, and answers, per position, what the
// SDK says. v3: Position.amount0/amount1, tickToPrice at both ends and
// the pool's token0Price (each as the numerator and denominator of whole token1 per whole
// token0), and the uncollected fees (TickLibrary.getFeeGrowthInside,
// PositionLibrary.getTokensOwed, plus the stored tokensOwed). v4 (items with "hooks"): the v4
// SDK's Pool.getPoolId, Position.amount0/amount1 and the same prices. A TWAP's quote (items
// with "quoteAtTick"): tickToPrice(base, quote, tick).quote(amount of base), in raw quote units,
// as OracleLibrary.getQuoteAtTick answers.
"use strict";

const tools = process.argv[2];
const JSBI = require(tools + "/jsbi");
const { CurrencyAmount, Ether, Token } = require(tools + "/@uniswap/sdk-core");
const { Pool, Position, PositionLibrary, TickLibrary, tickToPrice } = require(tools + "/@uniswap/v3-sdk");
const v4 = require(tools + "/@uniswap/v4-sdk");

// A v3 codebase's SDK: Uniswap's counts in JSBI, PancakeSwap's (@pancakeswap/v3-sdk, items with
// "sdk": "pancakeswap") in bigint, with the same classes and libraries.
const UNISWAP = { Token, Pool, Position, PositionLibrary, TickLibrary, tickToPrice, big: JSBI.BigInt, add: JSBI.add };
function v3Sdk(name) {
  if (name !== "pancakeswap") return UNISWAP;
  const pancake = require(tools + "/@pancakeswap/v3-sdk");
  return { ...pancake, Token: require(tools + "/@pancakeswap/swap-sdk-core").Token, big: BigInt, add: (a, b) => a + b };
}

const ZERO = "0x0000000000000000000000000000000000000000";

const big = (value) => JSBI.BigInt(value);

function decimal(price) {
  // Price's adjustedForDecimals (what its toSignificant prints): the raw ratio x 10^(decimals0 - decimals1).
  const adjusted = price.adjustedForDecimals;
  return { numerator: adjusted.numerator.toString(), denominator: adjusted.denominator.toString() };
}

function currency(chainId, token) {
  return token.address === ZERO ? Ether.onChain(chainId) : new Token(chainId, token.address, token.decimals);
}

function answerV4(item) {
  const [c0, c1] = [currency(item.chainId, item.token0), currency(item.chainId, item.token1)];
  const pool = new v4.Pool(c0, c1, item.fee, item.tickSpacing, item.hooks, item.sqrtPriceX96, item.poolLiquidity, item.tick);
  const position = new v4.Position({ pool, liquidity: item.liquidity, tickLower: item.tickLower, tickUpper: item.tickUpper });
  return {
    poolId: v4.Pool.getPoolId(c0, c1, item.fee, item.tickSpacing, item.hooks).toLowerCase(),
    amount0: position.amount0.quotient.toString(),
    amount1: position.amount1.quotient.toString(),
    priceLower: decimal(v4.tickToPrice(c0, c1, item.tickLower)),
    priceUpper: decimal(v4.tickToPrice(c0, c1, item.tickUpper)),
    priceCurrent: decimal(pool.currency0Price),
  };
}

function answerQuote(item) {
  const base = new Token(item.chainId, item.base, item.baseDecimals);
  const quote = new Token(item.chainId, item.quote, item.quoteDecimals);
  const price = tickToPrice(base, quote, item.quoteAtTick);
  return { quote: price.quote(CurrencyAmount.fromRawAmount(base, item.amount)).quotient.toString() };
}

function answer(item) {
  if (item.quoteAtTick !== undefined) return answerQuote(item);
  if (item.hooks !== undefined) return answerV4(item);
  const { Token, Pool, Position, PositionLibrary, TickLibrary, tickToPrice, big, add } = v3Sdk(item.sdk);
  const token0 = new Token(item.chainId, item.token0.address, item.token0.decimals, "T0");
  const token1 = new Token(item.chainId, item.token1.address, item.token1.decimals, "T1");
  const pool = new Pool(token0, token1, item.fee, big(item.sqrtPriceX96), big(item.poolLiquidity), item.tick);
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
    fees0: add(owed0, big(item.tokensOwed[0])).toString(),
    fees1: add(owed1, big(item.tokensOwed[1])).toString(),
  };
}

const items = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(items.map(answer)));
