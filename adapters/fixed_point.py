"""Fixed-point powers as the protocols' contracts compute them, for figures that must equal theirs."""

from __future__ import annotations

RAY = 10**27


def rpow(x: int, n: int, base: int = RAY) -> int:
    """x^n in `base` fixed point, by squaring, rounded half up at each step: the assembly rpow of
    Maker's Jug and Pot, and Euler's RPow (whose overflow checks a rate near 1 never meets)."""
    if x == 0:
        return base if n == 0 else 0
    z = base if n % 2 == 0 else x
    half = base // 2
    n //= 2
    while n:
        x = (x * x + half) // base
        if n % 2:
            z = (z * x + half) // base
        n //= 2
    return z
