"""Keccak-256, as the EVM hashes (not NIST's SHA3-256, whose padding differs, so hashlib cannot
serve): for the few ids a protocol derives from a hash, such as a Uniswap v4 PoolId
(keccak256(abi.encode(PoolKey))). A short input costs one or two permutations in pure Python;
selectors and event topics stay constants, checked by the tests with eth-hash.
"""

from __future__ import annotations

_RATE = 136
"""Bytes absorbed per permutation: (1600 - 2 x 256) / 8."""
_MASK = (1 << 64) - 1
_ROUND_CONSTANTS = (
    0x0000000000000001,
    0x0000000000008082,
    0x800000000000808A,
    0x8000000080008000,
    0x000000000000808B,
    0x0000000080000001,
    0x8000000080008081,
    0x8000000000008009,
    0x000000000000008A,
    0x0000000000000088,
    0x0000000080008009,
    0x000000008000000A,
    0x000000008000808B,
    0x800000000000008B,
    0x8000000000008089,
    0x8000000000008003,
    0x8000000000008002,
    0x8000000000000080,
    0x000000000000800A,
    0x800000008000000A,
    0x8000000080008081,
    0x8000000000008080,
    0x0000000080000001,
    0x8000000080008008,
)
_ROTATIONS = (
    (0, 36, 3, 41, 18),
    (1, 44, 10, 45, 2),
    (62, 6, 43, 15, 61),
    (28, 55, 25, 21, 56),
    (27, 20, 39, 8, 14),
)
"""By lane (x, y): how far theta's output is rotated in rho."""


def _rotate(value: int, by: int) -> int:
    return ((value << by) | (value >> (64 - by))) & _MASK if by else value


def _permute(lanes: list[list[int]]) -> None:
    """Keccak-f[1600] on 5 x 5 lanes of 64 bits, indexed [x][y], in place."""
    for constant in _ROUND_CONSTANTS:
        columns = [lanes[x][0] ^ lanes[x][1] ^ lanes[x][2] ^ lanes[x][3] ^ lanes[x][4] for x in range(5)]
        for x in range(5):
            mixed = columns[(x - 1) % 5] ^ _rotate(columns[(x + 1) % 5], 1)
            for y in range(5):
                lanes[x][y] ^= mixed
        moved = [[0] * 5 for _ in range(5)]
        for x in range(5):
            for y in range(5):
                moved[y][(2 * x + 3 * y) % 5] = _rotate(lanes[x][y], _ROTATIONS[x][y])
        for x in range(5):
            for y in range(5):
                lanes[x][y] = moved[x][y] ^ (~moved[(x + 1) % 5][y] & moved[(x + 2) % 5][y])
        lanes[0][0] ^= constant


def keccak256(data: bytes) -> bytes:
    """The 32-byte Keccak-256 digest of `data` (padding 0x01 ... 0x80)."""
    padded = bytearray(data)
    padded.append(0x01)
    padded.extend(bytes(-len(padded) % _RATE))
    padded[-1] |= 0x80
    lanes = [[0] * 5 for _ in range(5)]
    for start in range(0, len(padded), _RATE):
        block = padded[start : start + _RATE]
        for i in range(_RATE // 8):
            lanes[i % 5][i // 5] ^= int.from_bytes(block[8 * i : 8 * i + 8], "little")
        _permute(lanes)
    return b"".join(lanes[i % 5][i // 5].to_bytes(8, "little") for i in range(4))
