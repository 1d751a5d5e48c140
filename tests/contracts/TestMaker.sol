// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

// Maker's core (makerdao/dss with its joins, dss-gem-joins' GemJoin5, dss-cdp-manager, ds-proxy,
// dss-proxy-actions) and Sky's LockstakeEngine as the adapter reads them. Maker publishes its ABIs
// (@makerdao/dai-plugin-mcd) but no deployable build, so these are written afresh: the same
// signatures, the same getter shapes and the same arithmetic as the real contracts (integer units:
// wad 1e18, ray 1e27, rad 1e45; Maker's floor-rounding rmul/rdiv and its half-up rpow), in 0.8 with
// checked arithmetic where the originals check by hand.
//
// Collateral enters as on mainnet: a wallet's (or its DSProxy's) tokens through the ilk's join, which
// slips them into the Vat; dai drawn through DssProxyActions leaves through the DaiJoin as DAI.
//
// Left out everywhere, on purpose: authorization (`wards` is kept as a view so the ABI matches, and
// the worlds rely what mainnet relies, but nothing checks it: the tests are the only callers, so
// TestVat.slip, fold, grab and suck are open to anyone), LibNote's anonymous LogNote events of the
// Jug and the Spotter (the Vat's, the DssCdpManager's and the joins' are kept: the flows of
// positionsHistory read the Vat's and the manager's), DaiJoin.join (DAI burnt to pay back: no demo
// pays back), the staking engine's tokens (see TestLockstakeEngine), and a failed check reverts with
// Panic(0x11) where the originals revert with no data.

uint256 constant WAD = 10 ** 18;
uint256 constant RAY = 10 ** 27;

/// Maker's Vat: the CDP database (urns, ilks, gem, dai, sin) with its frob/grab/fold rules.
/// Checks are those of dss's vat.sol, in its order; every product it checks for overflow is
/// computed before the check that reads it, as dss does, so the same calls revert.
contract TestVat {
    /// The mainnet Vat's (dss 1.0.0's) own LogNote, unlike LibNote's: its topics are the selector
    /// and the first three argument words (no caller), its data the first 224 bytes of calldata.
    event LogNote(
        bytes4 indexed sig, bytes32 indexed arg1, bytes32 indexed arg2, bytes32 indexed arg3, bytes data
    ) anonymous;

    modifier note() {
        _;
        bytes memory data = new bytes(224);
        bytes32 arg1;
        bytes32 arg2;
        bytes32 arg3;
        assembly {
            calldatacopy(add(data, 0x20), 0, 224)
            arg1 := calldataload(4)
            arg2 := calldataload(36)
            arg3 := calldataload(68)
        }
        emit LogNote(msg.sig, arg1, arg2, arg3, data);
    }

    struct Ilk {
        uint256 Art; // normalised debt [wad]
        uint256 rate; // accumulated rate [ray]
        uint256 spot; // price with safety margin [ray]
        uint256 line; // debt ceiling [rad]
        uint256 dust; // urn debt floor [rad]
    }

    struct Urn {
        uint256 ink; // locked collateral [wad]
        uint256 art; // normalised debt [wad]
    }

    /// Kept for the ABI only: nothing here checks it (see the file's header).
    mapping(address => uint256) public wards;
    mapping(address => mapping(address => uint256)) public can;
    mapping(bytes32 => Ilk) public ilks;
    mapping(bytes32 => mapping(address => Urn)) public urns;
    mapping(bytes32 => mapping(address => uint256)) public gem; // [wad]
    mapping(address => uint256) public dai; // [rad]
    mapping(address => uint256) public sin; // [rad]
    uint256 public debt; // [rad]
    uint256 public vice; // [rad]
    uint256 public Line; // [rad]
    uint256 public live = 1;

    constructor() {
        wards[msg.sender] = 1;
    }

    function rely(address usr) external note {
        wards[usr] = 1;
    }

    function deny(address usr) external note {
        wards[usr] = 0;
    }

    function hope(address usr) external note {
        can[msg.sender][usr] = 1;
    }

    function nope(address usr) external note {
        can[msg.sender][usr] = 0;
    }

    /// Whether `usr` may act for `bit`: itself, or hoped by it.
    function _wish(address bit, address usr) internal view returns (bool) {
        return bit == usr || can[bit][usr] == 1;
    }

    // --- signed arithmetic as dss's _add/_sub/_mul(uint, int): revert exactly where those do ---

    function _add(uint256 x, int256 y) internal pure returns (uint256) {
        return y >= 0 ? x + uint256(y) : x - _abs(y);
    }

    function _sub(uint256 x, int256 y) internal pure returns (uint256) {
        return y >= 0 ? x - uint256(y) : x + _abs(y);
    }

    /// |y| as a uint, including |type(int256).min| = 2**255.
    function _abs(int256 y) internal pure returns (uint256) {
        return uint256(-(y + 1)) + 1;
    }

    function _mul(uint256 x, int256 y) internal pure returns (int256) {
        require(x <= uint256(type(int256).max));
        return int256(x) * y;
    }

    // --- administration ---

    function init(bytes32 ilk) external note {
        require(ilks[ilk].rate == 0, "Vat/ilk-already-init");
        ilks[ilk].rate = RAY;
    }

    function file(bytes32 what, uint256 data) external note {
        require(live == 1, "Vat/not-live");
        if (what == "Line") Line = data;
        else revert("Vat/file-unrecognized-param");
    }

    function file(bytes32 ilk, bytes32 what, uint256 data) external note {
        require(live == 1, "Vat/not-live");
        if (what == "spot") ilks[ilk].spot = data;
        else if (what == "line") ilks[ilk].line = data;
        else if (what == "dust") ilks[ilk].dust = data;
        else revert("Vat/file-unrecognized-param");
    }

    function cage() external note {
        live = 0;
    }

    // --- fungibility ---

    /// A join's (or the staking engine's) credit of collateral; its wards are not checked (see the
    /// file's header), but only those call it.
    function slip(bytes32 ilk, address usr, int256 wad) external note {
        gem[ilk][usr] = _add(gem[ilk][usr], wad);
    }

    function flux(bytes32 ilk, address src, address dst, uint256 wad) external note {
        require(_wish(src, msg.sender), "Vat/not-allowed");
        gem[ilk][src] -= wad;
        gem[ilk][dst] += wad;
    }

    function move(address src, address dst, uint256 rad) external note {
        require(_wish(src, msg.sender), "Vat/not-allowed");
        dai[src] -= rad;
        dai[dst] += rad;
    }

    // --- CDP manipulation ---

    /// Lock `dink` of v's gem into u's urn and draw `dart` of normalised debt as rate*dart dai to w.
    /// dss's rules: within the ceilings unless the debt falls; safe (art*rate <= ink*spot) unless
    /// the urn only gets safer (dart <= 0 and dink >= 0); u's consent unless it only gets safer,
    /// v's to give gem, w's to pay back dai; and no dusty debt.
    function frob(bytes32 i, address u, address v, address w, int256 dink, int256 dart) external note {
        require(live == 1, "Vat/not-live");
        Urn memory urn = urns[i][u];
        Ilk memory ilk = ilks[i];
        require(ilk.rate != 0, "Vat/ilk-not-init");

        urn.ink = _add(urn.ink, dink);
        urn.art = _add(urn.art, dart);
        ilk.Art = _add(ilk.Art, dart);

        int256 dtab = _mul(ilk.rate, dart);
        uint256 tab = ilk.rate * urn.art;
        debt = _add(debt, dtab);
        {
            uint256 ilkDebt = ilk.Art * ilk.rate;
            require(dart <= 0 || (ilkDebt <= ilk.line && debt <= Line), "Vat/ceiling-exceeded");
        }
        bool calmer = dart <= 0 && dink >= 0;
        {
            uint256 room = urn.ink * ilk.spot;
            require(calmer || tab <= room, "Vat/not-safe");
        }
        require(calmer || _wish(u, msg.sender), "Vat/not-allowed-u");
        require(dink <= 0 || _wish(v, msg.sender), "Vat/not-allowed-v");
        require(dart >= 0 || _wish(w, msg.sender), "Vat/not-allowed-w");
        require(urn.art == 0 || tab >= ilk.dust, "Vat/dust");

        gem[i][v] = _sub(gem[i][v], dink);
        dai[w] = _add(dai[w], dtab);
        urns[i][u] = urn;
        ilks[i] = ilk;
    }

    /// Move ink and art between two urns of one ilk (DssCdpManager's quit, enter and shift).
    function fork(bytes32 ilk, address src, address dst, int256 dink, int256 dart) external note {
        Urn storage u = urns[ilk][src];
        Urn storage v = urns[ilk][dst];
        Ilk storage i = ilks[ilk];

        u.ink = _sub(u.ink, dink);
        u.art = _sub(u.art, dart);
        v.ink = _add(v.ink, dink);
        v.art = _add(v.art, dart);

        uint256 utab = u.art * i.rate;
        uint256 vtab = v.art * i.rate;
        require(_wish(src, msg.sender) && _wish(dst, msg.sender), "Vat/not-allowed");
        require(utab <= u.ink * i.spot, "Vat/not-safe-src");
        require(vtab <= v.ink * i.spot, "Vat/not-safe-dst");
        require(utab >= i.dust || u.art == 0, "Vat/dust-src");
        require(vtab >= i.dust || v.art == 0, "Vat/dust-dst");
    }

    /// Confiscation, as the Dog does it: ink goes to v's gem, the debt becomes w's sin (and vice).
    function grab(bytes32 i, address u, address v, address w, int256 dink, int256 dart) external note {
        Urn storage urn = urns[i][u];
        Ilk storage ilk = ilks[i];

        urn.ink = _add(urn.ink, dink);
        urn.art = _add(urn.art, dart);
        ilk.Art = _add(ilk.Art, dart);

        int256 dtab = _mul(ilk.rate, dart);
        gem[i][v] = _sub(gem[i][v], dink);
        sin[w] = _sub(sin[w], dtab);
        vice = _sub(vice, dtab);
    }

    // --- settlement ---

    function heal(uint256 rad) external note {
        sin[msg.sender] -= rad;
        dai[msg.sender] -= rad;
        vice -= rad;
        debt -= rad;
    }

    function suck(address u, address v, uint256 rad) external note {
        sin[u] += rad;
        dai[v] += rad;
        vice += rad;
        debt += rad;
    }

    // --- rates ---

    /// The Jug's fee: the ilk's rate grows by `rate`, and Art*rate of new dai goes to u (the vow).
    function fold(bytes32 i, address u, int256 rate) external note {
        require(live == 1, "Vat/not-live");
        Ilk storage ilk = ilks[i];
        ilk.rate = _add(ilk.rate, rate);
        int256 rad = _mul(ilk.Art, rate);
        dai[u] = _add(dai[u], rad);
        debt = _add(debt, rad);
    }
}

/// The ERC-20 calls Maker's joins and DssProxyActions make of a collateral token.
interface TestGemLike {
    function decimals() external view returns (uint8);
    function balanceOf(address) external view returns (uint256);
    function transfer(address, uint256) external returns (bool);
    function transferFrom(address, address, uint256) external returns (bool);
    function approve(address, uint256) external returns (bool);
}

/// What the DaiJoin needs of DAI (DSToken's mint; TestToken's is open to anyone).
interface TestDaiLike {
    function mint(address, uint256) external;
}

/// dss's LibNote: after a `note` call runs, the anonymous LogNote of its selector, its caller, its
/// first two argument words and its first 224 bytes of calldata (zero-padded), the log LibNote's
/// assembly writes.
abstract contract TestLibNote {
    event LogNote(
        bytes4 indexed sig, address indexed usr, bytes32 indexed arg1, bytes32 indexed arg2, bytes data
    ) anonymous;

    modifier note() {
        _;
        bytes memory data = new bytes(224);
        bytes32 arg1;
        bytes32 arg2;
        assembly {
            calldatacopy(add(data, 0x20), 0, 224)
            arg1 := calldataload(4)
            arg2 := calldataload(36)
        }
        emit LogNote(msg.sig, msg.sender, arg1, arg2, data);
    }
}

/// What dss's joins share: wards (kept for the ABI, see the file's header), the `live` flag that
/// `cage` clears, each change noted.
abstract contract TestJoinAuth is TestLibNote {
    /// Kept for the ABI only.
    mapping(address => uint256) public wards;
    uint256 public live;

    constructor() {
        wards[msg.sender] = 1;
        live = 1;
    }

    function rely(address usr) external note {
        wards[usr] = 1;
    }

    function deny(address usr) external note {
        wards[usr] = 0;
    }

    function cage() external note {
        live = 0;
    }
}

/// A collateral join's views (dss's GemJoin and dss-gem-joins' GemJoin5 alike).
abstract contract TestGemJoinViews is TestJoinAuth {
    TestVat public vat;
    bytes32 public ilk;
    TestGemLike public gem;
    uint256 public dec;

    constructor(address vat_, bytes32 ilk_, address gem_) {
        vat = TestVat(vat_);
        ilk = ilk_;
        gem = TestGemLike(gem_);
        dec = gem.decimals();
    }
}

/// dss's GemJoin (join.sol), mainnet's join for a token of 18 decimals (WETH for ETH-A): `join`
/// credits usr's gem in the Vat with `wad` and takes as much of the token from the caller; `exit`
/// takes the caller's gem back and pays the token to usr.
contract TestGemJoin is TestGemJoinViews {
    constructor(address vat_, bytes32 ilk_, address gem_) TestGemJoinViews(vat_, ilk_, gem_) {}

    /// -wad as dss's -int256(wad) gives it, -2**255 included (exit checks wad <= 2**255 first).
    function _minus(uint256 wad) internal pure returns (int256 minus) {
        unchecked {
            minus = -int256(wad);
        }
    }

    function join(address usr, uint256 wad) external note {
        require(live == 1, "GemJoin/not-live");
        require(wad <= uint256(type(int256).max), "GemJoin/overflow");
        vat.slip(ilk, usr, int256(wad));
        require(gem.transferFrom(msg.sender, address(this), wad), "GemJoin/failed-transfer");
    }

    function exit(address usr, uint256 wad) external note {
        require(wad <= 2 ** 255, "GemJoin/overflow");
        vat.slip(ilk, msg.sender, _minus(wad));
        require(gem.transfer(usr, wad), "GemJoin/failed-transfer");
    }
}

/// dss-gem-joins' GemJoin5 (join-5.sol), mainnet's join for a token of fewer than 18 decimals (WBTC
/// for WBTC-A): the same, with `amt` in the token's units and amt * 10**(18 - dec) as the gem's wad.
contract TestGemJoin5 is TestGemJoinViews {
    constructor(address vat_, bytes32 ilk_, address gem_) TestGemJoinViews(vat_, ilk_, gem_) {
        require(dec < 18, "GemJoin5/decimals-18-or-higher");
    }

    function join(address urn, uint256 amt) public note {
        require(live == 1, "GemJoin5/not-live");
        uint256 wad = amt * 10 ** (18 - dec);
        require(wad <= uint256(type(int256).max), "GemJoin5/overflow");
        vat.slip(ilk, urn, int256(wad));
        require(gem.transferFrom(msg.sender, address(this), amt), "GemJoin5/failed-transfer");
    }

    function exit(address guy, uint256 amt) public note {
        uint256 wad = amt * 10 ** (18 - dec);
        require(wad <= uint256(type(int256).max), "GemJoin5/overflow");
        vat.slip(ilk, msg.sender, -int256(wad));
        require(gem.transfer(guy, amt), "GemJoin5/failed-transfer");
    }
}

/// dss's DaiJoin, its way out only: `exit` takes the caller's Vat dai and mints as much DAI to usr,
/// where DssProxyActions' draws end. Its `join` (DAI burnt to pay back) is left out: no demo pays back.
contract TestDaiJoin is TestJoinAuth {
    TestVat public vat;
    TestDaiLike public dai;

    constructor(address vat_, address dai_) {
        vat = TestVat(vat_);
        dai = TestDaiLike(dai_);
    }

    function exit(address usr, uint256 wad) external note {
        require(live == 1, "DaiJoin/not-live");
        vat.move(msg.sender, address(this), RAY * wad);
        dai.mint(usr, wad);
    }
}

/// What the Spotter needs of a price feed (an OSM); called, not static-called, as dss does.
interface TestPipLike {
    function peek() external returns (bytes32, bool);
}

/// Maker's Spotter: turns a pip's price (wad) into the Vat's spot (ray) with the liquidation ratio.
contract TestSpotter {
    struct Ilk {
        TestPipLike pip; // price feed
        uint256 mat; // liquidation ratio [ray]
    }

    event Poke(bytes32 ilk, bytes32 val, uint256 spot);

    /// Kept for the ABI only: nothing here checks it.
    mapping(address => uint256) public wards;
    mapping(bytes32 => Ilk) public ilks;
    TestVat public vat;
    uint256 public par; // reference per dai [ray]
    uint256 public live;

    constructor(address vat_) {
        wards[msg.sender] = 1;
        vat = TestVat(vat_);
        par = RAY;
        live = 1;
    }

    function rely(address guy) external {
        wards[guy] = 1;
    }

    function deny(address guy) external {
        wards[guy] = 0;
    }

    /// Maker's rdiv: x * RAY / y, rounded down (not DSMath's half-up rdiv).
    function _rdiv(uint256 x, uint256 y) internal pure returns (uint256) {
        return x * RAY / y;
    }

    function file(bytes32 ilk, bytes32 what, address pip_) external {
        require(live == 1, "Spotter/not-live");
        if (what == "pip") ilks[ilk].pip = TestPipLike(pip_);
        else revert("Spotter/file-unrecognized-param");
    }

    function file(bytes32 what, uint256 data) external {
        require(live == 1, "Spotter/not-live");
        if (what == "par") par = data;
        else revert("Spotter/file-unrecognized-param");
    }

    function file(bytes32 ilk, bytes32 what, uint256 data) external {
        require(live == 1, "Spotter/not-live");
        if (what == "mat") ilks[ilk].mat = data;
        else revert("Spotter/file-unrecognized-param");
    }

    /// spot = rdiv(rdiv(val * 1e9, par), mat), each step rounded down; 0 when the pip has no value.
    function poke(bytes32 ilk) external {
        (bytes32 val, bool has) = ilks[ilk].pip.peek();
        uint256 spot = has ? _rdiv(_rdiv(uint256(val) * 10 ** 9, par), ilks[ilk].mat) : 0;
        vat.file(ilk, "spot", spot);
        emit Poke(ilk, val, spot);
    }

    function cage() external {
        live = 0;
    }
}

/// An OSM (Maker's delayed price feed) whose value the test sets. The real OSM releases a price
/// `hop` seconds after its source gave it (poke moves `nxt` to `cur`) and answers peek/read only
/// to whitelisted readers (`bud`); this one takes the price at once from `set` and answers anyone.
contract TestOsm {
    struct Feed {
        uint128 val;
        uint128 has;
    }

    event LogValue(bytes32 val);

    /// Kept for the ABI only.
    mapping(address => uint256) public wards;
    uint256 public stopped;
    address public src;
    uint16 public hop = 3600;
    uint64 public zzz;
    Feed internal cur;
    Feed internal nxt;

    constructor() {
        wards[msg.sender] = 1;
    }

    /// The current (and next) price, a wad as the OSM stores it (uint128); zzz becomes now.
    function set(uint256 val) external {
        require(val <= type(uint128).max, "TestOsm/val-too-big");
        cur = Feed(uint128(val), 1);
        nxt = cur;
        zzz = uint64(block.timestamp);
        stopped = 0;
        emit LogValue(bytes32(val));
    }

    function step(uint16 ts) external {
        require(ts > 0, "OSM/ts-is-zero");
        hop = ts;
    }

    /// No price any more (peek's `has` false, so the Spotter's poke sets spot 0), as the OSM's void.
    function void() external {
        cur = nxt = Feed(0, 0);
        stopped = 1;
    }

    /// Every reader is whitelisted here.
    function bud(address) external pure returns (uint256) {
        return 1;
    }

    function pass() external view returns (bool ok) {
        return block.timestamp >= zzz + hop;
    }

    function peek() external view returns (bytes32, bool) {
        return (bytes32(uint256(cur.val)), cur.has == 1);
    }

    function peep() external view returns (bytes32, bool) {
        return (bytes32(uint256(nxt.val)), nxt.has == 1);
    }

    function read() external view returns (bytes32) {
        require(cur.has == 1, "OSM/no-current-value");
        return bytes32(uint256(cur.val));
    }
}

/// Maker's Jug: per-ilk stability fees, compounded per second into the Vat's rate by `drip`.
contract TestJug {
    struct Ilk {
        uint256 duty; // per-second fee [ray]
        uint256 rho; // time of the last drip
    }

    /// Kept for the ABI only.
    mapping(address => uint256) public wards;
    mapping(bytes32 => Ilk) public ilks;
    TestVat public vat;
    address public vow;
    uint256 public base; // global per-second fee, added to each duty [ray]

    constructor(address vat_) {
        wards[msg.sender] = 1;
        vat = TestVat(vat_);
    }

    function rely(address usr) external {
        wards[usr] = 1;
    }

    function deny(address usr) external {
        wards[usr] = 0;
    }

    /// dss's rpow: x**n in base b by squaring, every product rounded half up ((p + b/2) / b),
    /// with 0**0 = b; the same values as its assembly for every input it does not revert on.
    function _rpow(uint256 x, uint256 n, uint256 b) internal pure returns (uint256 z) {
        if (x == 0) return n == 0 ? b : 0;
        z = n % 2 == 0 ? b : x;
        uint256 half = b / 2;
        for (n /= 2; n != 0; n /= 2) {
            x = (x * x + half) / b;
            if (n % 2 == 1) z = (z * x + half) / b;
        }
    }

    /// The Jug's rmul: x * y / RAY rounded down (not DSMath's half-up rmul).
    function _rmul(uint256 x, uint256 y) internal pure returns (uint256) {
        return x * y / RAY;
    }

    function _diff(uint256 x, uint256 y) internal pure returns (int256) {
        require(x <= uint256(type(int256).max) && y <= uint256(type(int256).max));
        return int256(x) - int256(y);
    }

    function init(bytes32 ilk) external {
        Ilk storage i = ilks[ilk];
        require(i.duty == 0, "Jug/ilk-already-init");
        i.duty = RAY;
        i.rho = block.timestamp;
    }

    /// As in dss, a duty changes only in the block of the ilk's last drip (see `dripAndFile`).
    function file(bytes32 ilk, bytes32 what, uint256 data) public {
        require(block.timestamp == ilks[ilk].rho, "Jug/rho-not-updated");
        if (what == "duty") ilks[ilk].duty = data;
        else revert("Jug/file-unrecognized-param");
    }

    function file(bytes32 what, uint256 data) external {
        if (what == "base") base = data;
        else revert("Jug/file-unrecognized-param");
    }

    function file(bytes32 what, address data) external {
        if (what == "vow") vow = data;
        else revert("Jug/file-unrecognized-param");
    }

    /// rate = rmul(rpow(base + duty, now - rho, RAY), prev); the Vat's rate moves by rate - prev.
    function drip(bytes32 ilk) public returns (uint256 rate) {
        require(block.timestamp >= ilks[ilk].rho, "Jug/invalid-now");
        (, uint256 prev,,,) = vat.ilks(ilk);
        rate = _rmul(_rpow(base + ilks[ilk].duty, block.timestamp - ilks[ilk].rho, RAY), prev);
        vat.fold(ilk, vow, _diff(rate, prev));
        ilks[ilk].rho = block.timestamp;
    }

    /// Test-only: what a governance spell does to change a fee, drip then file in one transaction
    /// (a test's transactions each get a block of their own, so `file` alone would find rho old).
    function dripAndFile(bytes32 ilk, bytes32 what, uint256 data) external {
        drip(ilk);
        file(ilk, what, data);
    }
}

/// Maker's Dog (liquidations 2.0) with dss's bark arithmetic: the same unsafe test, the same
/// Hole/hole room, partial-liquidation and dust rules, the same Bark event. Without a Clipper:
/// the collateral goes to the ilk's `clip` if one was filed, else to the Dog itself, `id` counts
/// barks (`kicks`, as a Clipper counts its auctions) and the Vow is not told (`fess`). As on
/// mainnet, bark needs `Hole`, the ilk's `hole` and `chop` (>= WAD) filed first.
contract TestDog {
    struct Ilk {
        address clip; // liquidator
        uint256 chop; // liquidation penalty [wad]
        uint256 hole; // max dai in this ilk's auctions [rad]
        uint256 dirt; // dai in this ilk's auctions [rad]
    }

    event File(bytes32 indexed what, uint256 data);
    event File(bytes32 indexed what, address data);
    event File(bytes32 indexed ilk, bytes32 indexed what, uint256 data);
    event File(bytes32 indexed ilk, bytes32 indexed what, address clip);
    event Bark(bytes32 indexed ilk, address indexed urn, uint256 ink, uint256 art, uint256 due, address clip, uint256 indexed id);
    event Digs(bytes32 indexed ilk, uint256 rad);
    event Rely(address indexed usr);
    event Deny(address indexed usr);
    event Cage();

    /// Kept for the ABI only.
    mapping(address => uint256) public wards;
    TestVat public immutable vat;
    mapping(bytes32 => Ilk) public ilks;
    address public vow;
    uint256 public live;
    uint256 public Hole; // [rad]
    uint256 public Dirt; // [rad]
    uint256 public kicks;

    constructor(address vat_) {
        wards[msg.sender] = 1;
        vat = TestVat(vat_);
        live = 1;
        emit Rely(msg.sender);
    }

    function rely(address usr) external {
        wards[usr] = 1;
        emit Rely(usr);
    }

    function deny(address usr) external {
        wards[usr] = 0;
        emit Deny(usr);
    }

    function file(bytes32 what, address data) external {
        if (what == "vow") vow = data;
        else revert("Dog/file-unrecognized-param");
        emit File(what, data);
    }

    function file(bytes32 what, uint256 data) external {
        if (what == "Hole") Hole = data;
        else revert("Dog/file-unrecognized-param");
        emit File(what, data);
    }

    function file(bytes32 ilk, bytes32 what, uint256 data) external {
        if (what == "chop") {
            require(data >= WAD, "Dog/file-chop-lt-WAD");
            ilks[ilk].chop = data;
        } else if (what == "hole") {
            ilks[ilk].hole = data;
        } else {
            revert("Dog/file-unrecognized-param");
        }
        emit File(ilk, what, data);
    }

    /// Any address (the real Dog asks the Clipper for its ilk; there is no Clipper here).
    function file(bytes32 ilk, bytes32 what, address clip) external {
        if (what == "clip") ilks[ilk].clip = clip;
        else revert("Dog/file-unrecognized-param");
        emit File(ilk, what, clip);
    }

    function chop(bytes32 ilk) external view returns (uint256) {
        return ilks[ilk].chop;
    }

    function _min(uint256 x, uint256 y) internal pure returns (uint256) {
        return x <= y ? x : y;
    }

    /// Liquidate an unsafe urn (spot > 0 and ink*spot < art*rate): all of it, or as much as the
    /// room left under Hole and hole allows (dart = min(art, room*WAD/rate/chop), taken whole if the
    /// rest would be dusty), its collateral in proportion (dink = ink*dart/art, rounded down).
    function bark(bytes32 ilk, address urn, address kpr) external returns (uint256 id) {
        require(live == 1, "Dog/not-live");
        (uint256 ink, uint256 art) = vat.urns(ilk, urn);
        Ilk memory milk = ilks[ilk];
        uint256 dart;
        uint256 rate;
        {
            uint256 spot;
            uint256 dust;
            (, rate, spot,, dust) = vat.ilks(ilk);
            require(spot > 0 && ink * spot < art * rate, "Dog/not-unsafe");
            require(Hole > Dirt && milk.hole > milk.dirt, "Dog/liquidation-limit-hit");
            uint256 room = _min(Hole - Dirt, milk.hole - milk.dirt);
            dart = _min(art, room * WAD / rate / milk.chop);
            if (art > dart) {
                if ((art - dart) * rate < dust) {
                    dart = art;
                } else {
                    require(dart * rate >= dust, "Dog/dusty-auction-from-partial-liquidation");
                }
            }
        }
        uint256 dink = ink * dart / art;
        require(dink > 0, "Dog/null-auction");
        require(dart <= 2 ** 255 && dink <= 2 ** 255, "Dog/overflow");

        address clip = _grab(ilk, urn, milk.clip, dink, dart);
        uint256 due = dart * rate;
        {
            uint256 tab = due * milk.chop / WAD;
            Dirt += tab;
            ilks[ilk].dirt = milk.dirt + tab;
        }
        id = ++kicks;
        kpr; // the keeper's reward is the Clipper's to pay
        emit Bark(ilk, urn, dink, dart, due, clip, id);
    }

    /// vat.grab of dink and dart (each <= 2**255) from the urn: gem to the clip (or this Dog),
    /// sin to the vow.
    function _grab(bytes32 ilk, address urn, address clip, uint256 dink, uint256 dart) internal returns (address to) {
        to = clip == address(0) ? address(this) : clip;
        int256 minusInk;
        int256 minusArt;
        unchecked {
            // -2**255 included, as dss's -int256(x) gives it
            minusInk = -int256(dink);
            minusArt = -int256(dart);
        }
        vat.grab(ilk, urn, to, vow, minusInk, minusArt);
    }

    /// What a Clipper calls as its auctions raise dai (take) or end (yank).
    function digs(bytes32 ilk, uint256 rad) external {
        Dirt -= rad;
        ilks[ilk].dirt -= rad;
        emit Digs(ilk, rad);
    }

    function cage() external {
        live = 0;
        emit Cage();
    }
}

/// A CDP's urn: an address of its own in the Vat, which lets its creator (the manager, or the
/// LockstakeEngine) act for it, as dss-cdp-manager's UrnHandler does.
contract TestUrnHandler {
    constructor(address vat) {
        TestVat(vat).hope(msg.sender);
    }
}

/// dss-cdp-manager's DssCdpManager (as deployed in 2019, with LibNote: every action noted): numbered
/// CDPs, each with an UrnHandler, kept per owner in a doubly linked list (first, last, list(prev,
/// next), count) exactly as the real one keeps it.
contract TestDssCdpManager is TestLibNote {
    struct List {
        uint256 prev;
        uint256 next;
    }

    event NewCdp(address indexed usr, address indexed own, uint256 indexed cdp);

    address public vat;
    uint256 public cdpi;
    mapping(uint256 => address) public urns;
    mapping(uint256 => List) public list;
    mapping(uint256 => address) public owns;
    mapping(uint256 => bytes32) public ilks;
    mapping(address => uint256) public first;
    mapping(address => uint256) public last;
    mapping(address => uint256) public count;
    mapping(address => mapping(uint256 => mapping(address => uint256))) public cdpCan;
    mapping(address => mapping(address => uint256)) public urnCan;

    constructor(address vat_) {
        vat = vat_;
    }

    modifier cdpAllowed(uint256 cdp) {
        require(msg.sender == owns[cdp] || cdpCan[owns[cdp]][cdp][msg.sender] == 1, "cdp-not-allowed");
        _;
    }

    modifier urnAllowed(address urn) {
        require(msg.sender == urn || urnCan[urn][msg.sender] == 1, "urn-not-allowed");
        _;
    }

    function _toInt(uint256 x) internal pure returns (int256) {
        require(x <= uint256(type(int256).max));
        return int256(x);
    }

    function cdpAllow(uint256 cdp, address usr, uint256 ok) public cdpAllowed(cdp) {
        cdpCan[owns[cdp]][cdp][usr] = ok;
    }

    function urnAllow(address usr, uint256 ok) public {
        urnCan[msg.sender][usr] = ok;
    }

    /// A new CDP for `usr`, appended to usr's list; NewCdp names the caller (usr) and owner (own).
    function open(bytes32 ilk, address usr) public note returns (uint256) {
        require(usr != address(0), "usr-address-0");
        uint256 cdp = ++cdpi;
        urns[cdp] = address(new TestUrnHandler(vat));
        owns[cdp] = usr;
        ilks[cdp] = ilk;
        if (first[usr] == 0) first[usr] = cdp;
        if (last[usr] != 0) {
            list[cdp].prev = last[usr];
            list[last[usr]].next = cdp;
        }
        last[usr] = cdp;
        count[usr] += 1;
        emit NewCdp(msg.sender, usr, cdp);
        return cdp;
    }

    /// Hand the CDP to `dst`: unlinked from its owner's list, appended to dst's.
    function give(uint256 cdp, address dst) public note cdpAllowed(cdp) {
        require(dst != address(0), "dst-address-0");
        address own = owns[cdp];
        require(dst != own, "dst-already-owner");
        List memory at = list[cdp];
        if (at.prev != 0) list[at.prev].next = at.next;
        if (at.next != 0) list[at.next].prev = at.prev;
        else last[own] = at.prev;
        if (first[own] == cdp) first[own] = at.next;
        count[own] -= 1;

        owns[cdp] = dst;
        list[cdp] = List(last[dst], 0);
        if (last[dst] != 0) list[last[dst]].next = cdp;
        if (first[dst] == 0) first[dst] = cdp;
        last[dst] = cdp;
        count[dst] += 1;
    }

    /// vat.frob on the CDP's urn, which gives the collateral and takes the dai itself.
    function frob(uint256 cdp, int256 dink, int256 dart) public note cdpAllowed(cdp) {
        address urn = urns[cdp];
        TestVat(vat).frob(ilks[cdp], urn, urn, urn, dink, dart);
    }

    function flux(uint256 cdp, address dst, uint256 wad) public note cdpAllowed(cdp) {
        TestVat(vat).flux(ilks[cdp], urns[cdp], dst, wad);
    }

    function flux(bytes32 ilk, uint256 cdp, address dst, uint256 wad) public note cdpAllowed(cdp) {
        TestVat(vat).flux(ilk, urns[cdp], dst, wad);
    }

    function move(uint256 cdp, address dst, uint256 rad) public note cdpAllowed(cdp) {
        TestVat(vat).move(urns[cdp], dst, rad);
    }

    function quit(uint256 cdp, address dst) public note cdpAllowed(cdp) urnAllowed(dst) {
        (uint256 ink, uint256 art) = TestVat(vat).urns(ilks[cdp], urns[cdp]);
        TestVat(vat).fork(ilks[cdp], urns[cdp], dst, _toInt(ink), _toInt(art));
    }

    function enter(address src, uint256 cdp) public note urnAllowed(src) cdpAllowed(cdp) {
        (uint256 ink, uint256 art) = TestVat(vat).urns(ilks[cdp], src);
        TestVat(vat).fork(ilks[cdp], src, urns[cdp], _toInt(ink), _toInt(art));
    }

    function shift(uint256 cdpSrc, uint256 cdpDst) public note cdpAllowed(cdpSrc) cdpAllowed(cdpDst) {
        require(ilks[cdpSrc] == ilks[cdpDst], "non-matching-cdps");
        (uint256 ink, uint256 art) = TestVat(vat).urns(ilks[cdpSrc], urns[cdpSrc]);
        TestVat(vat).fork(ilks[cdpSrc], urns[cdpSrc], urns[cdpDst], _toInt(ink), _toInt(art));
    }
}

/// dss-cdp-manager's GetCdps: an owner's CDPs in one call, walking the manager's list from
/// `first` along next (Asc) or from `last` along prev (Desc).
contract TestGetCdps {
    function getCdpsAsc(address manager, address guy)
        external
        view
        returns (uint256[] memory ids, address[] memory urns, bytes32[] memory ilks)
    {
        TestDssCdpManager m = TestDssCdpManager(manager);
        (ids, urns, ilks) = _allocate(m.count(guy));
        uint256 i = 0;
        for (uint256 id = m.first(guy); id > 0; i++) {
            ids[i] = id;
            urns[i] = m.urns(id);
            ilks[i] = m.ilks(id);
            (, id) = m.list(id);
        }
    }

    function getCdpsDesc(address manager, address guy)
        external
        view
        returns (uint256[] memory ids, address[] memory urns, bytes32[] memory ilks)
    {
        TestDssCdpManager m = TestDssCdpManager(manager);
        (ids, urns, ilks) = _allocate(m.count(guy));
        uint256 i = 0;
        for (uint256 id = m.last(guy); id > 0; i++) {
            ids[i] = id;
            urns[i] = m.urns(id);
            ilks[i] = m.ilks(id);
            (id,) = m.list(id);
        }
    }

    function _allocate(uint256 n) internal pure returns (uint256[] memory, address[] memory, bytes32[] memory) {
        return (new uint256[](n), new address[](n), new bytes32[](n));
    }
}

/// ds-proxy's DSProxy: a contract wallet that runs code with delegatecall for its owner (DSAuth:
/// the owner, or the proxy itself). No DSAuthority and no code cache (`cache` is the zero address,
/// so only execute(address, bytes) is here).
contract TestDSProxy {
    event LogSetOwner(address indexed owner);

    address public owner;
    address public cache;

    /// Owned by its creator first (the factory), as DSAuth's constructor does.
    constructor(address cache_) {
        cache = cache_;
        owner = msg.sender;
        emit LogSetOwner(msg.sender);
    }

    receive() external payable {}

    modifier auth() {
        require(msg.sender == owner || msg.sender == address(this), "ds-auth-unauthorized");
        _;
    }

    function setOwner(address owner_) external auth {
        owner = owner_;
        emit LogSetOwner(owner_);
    }

    /// Run `_data` on `_target`'s code in this proxy's storage; a revert comes back as it was.
    function execute(address _target, bytes memory _data) public payable auth returns (bytes memory response) {
        require(_target != address(0), "ds-proxy-target-address-required");
        bool ok;
        (ok, response) = _target.delegatecall{gas: gasleft() - 5000}(_data);
        if (!ok) {
            assembly {
                revert(add(response, 0x20), mload(response))
            }
        }
    }
}

/// ds-proxy's DSProxyFactory: builds proxies and announces each (Created, from the factory, with
/// the caller as `sender`: the ProxyRegistry when built through it). No cache (address zero).
contract TestDSProxyFactory {
    event Created(address indexed sender, address indexed owner, address proxy, address cache);

    mapping(address => bool) public isProxy;
    address public cache;

    function build() public returns (address payable proxy) {
        proxy = build(msg.sender);
    }

    function build(address owner) public returns (address payable proxy) {
        proxy = payable(address(new TestDSProxy(cache)));
        emit Created(msg.sender, owner, proxy, cache);
        TestDSProxy(proxy).setOwner(owner);
        isProxy[proxy] = true;
    }
}

/// Maker's ProxyRegistry: one DSProxy per owner, built by a DSProxyFactory. It builds another only
/// if the owner has none or no longer owns the one recorded (a bare revert if not). The real one is
/// given mainnet's factory; this one makes its own, so it deploys with no arguments.
contract TestProxyRegistry {
    mapping(address => address) public proxies;
    /// Public here (internal in the real registry): the emitter of the Created events.
    TestDSProxyFactory public factory;

    constructor() {
        factory = new TestDSProxyFactory();
    }

    function build() public returns (address payable proxy) {
        proxy = build(msg.sender);
    }

    function build(address owner) public returns (address payable proxy) {
        address current = proxies[owner];
        require(current == address(0) || TestDSProxy(payable(current)).owner() != owner);
        proxy = factory.build(owner);
        proxies[owner] = proxy;
    }
}

/// What DssProxyActions needs of a collateral join (GemJoin and GemJoin5 alike).
interface TestGemJoinLike {
    function dec() external view returns (uint256);
    function gem() external view returns (TestGemLike);
    function join(address, uint256) external;
}

/// DssProxyActions' CDP actions, run in a DSProxy by `execute` (delegatecall: address(this) is the
/// proxy, msg.sender its owner). Same signatures as DssProxyActions, except `open(manager, ilk)`,
/// which opens for the proxy itself.
contract TestProxyActions {
    function open(address manager, bytes32 ilk, address usr) public returns (uint256 cdp) {
        cdp = TestDssCdpManager(manager).open(ilk, usr);
    }

    function open(address manager, bytes32 ilk) external returns (uint256 cdp) {
        cdp = open(manager, ilk, address(this));
    }

    function give(address manager, uint256 cdp, address usr) external {
        TestDssCdpManager(manager).give(cdp, usr);
    }

    function cdpAllow(address manager, uint256 cdp, address usr, uint256 ok) external {
        TestDssCdpManager(manager).cdpAllow(cdp, usr, ok);
    }

    function urnAllow(address manager, address usr, uint256 ok) external {
        TestDssCdpManager(manager).urnAllow(usr, ok);
    }

    function flux(address manager, uint256 cdp, address dst, uint256 wad) external {
        TestDssCdpManager(manager).flux(cdp, dst, wad);
    }

    function move(address manager, uint256 cdp, address dst, uint256 rad) public {
        TestDssCdpManager(manager).move(cdp, dst, rad);
    }

    function frob(address manager, uint256 cdp, int256 dink, int256 dart) public {
        TestDssCdpManager(manager).frob(cdp, dink, dart);
    }

    function hope(address obj, address usr) external {
        TestVat(obj).hope(usr);
    }

    function nope(address obj, address usr) external {
        TestVat(obj).nope(usr);
    }

    /// With `transferFrom`, the owner's `amt` of the gem comes to the proxy (the owner approved it)
    /// and the proxy lets the join take it; the join credits it to `urn`'s gem in the Vat.
    function gemJoin_join(address apt, address urn, uint256 amt, bool transferFrom) public {
        if (transferFrom) {
            TestGemLike gem = TestGemJoinLike(apt).gem();
            gem.transferFrom(msg.sender, address(this), amt);
            gem.approve(apt, amt);
        }
        TestGemJoinLike(apt).join(urn, amt);
    }

    /// Join `amtC` of the gem (in its own units) into the CDP's urn, lock it (as a wad) and draw
    /// exactly `wadD` dai (DssProxyActions' _getDrawDart: after a drip, the art that covers wadD
    /// less the urn's own dai, rounded up), which leaves through the DaiJoin as DAI to the owner.
    function lockGemAndDraw(
        address manager,
        address jug,
        address gemJoin,
        address daiJoin,
        uint256 cdp,
        uint256 amtC,
        uint256 wadD,
        bool transferFrom
    ) public {
        gemJoin_join(gemJoin, TestDssCdpManager(manager).urns(cdp), amtC, transferFrom);
        frob(manager, cdp, _toInt(_convertTo18(gemJoin, amtC)), _drawDart(manager, jug, cdp, wadD));
        move(manager, cdp, address(this), wadD * RAY);
        _exitDai(TestVat(TestDssCdpManager(manager).vat()), daiJoin, wadD);
    }

    /// The gem's amount as the Vat's wad (the joins do the same conversion).
    function _convertTo18(address gemJoin, uint256 amt) internal view returns (uint256) {
        return amt * 10 ** (18 - TestGemJoinLike(gemJoin).dec());
    }

    function _toInt(uint256 x) internal pure returns (int256) {
        require(x <= uint256(type(int256).max), "int-overflow");
        return int256(x);
    }

    /// The proxy's `wad` of Vat dai out to the owner as DAI, the DaiJoin hoped first.
    function _exitDai(TestVat vat, address daiJoin, uint256 wad) internal {
        if (vat.can(address(this), daiJoin) == 0) vat.hope(daiJoin);
        TestDaiJoin(daiJoin).exit(msg.sender, wad);
    }

    function _drawDart(address manager, address jug, uint256 cdp, uint256 wad) internal returns (int256 dart) {
        TestDssCdpManager m = TestDssCdpManager(manager);
        uint256 rate = TestJug(jug).drip(m.ilks(cdp));
        uint256 dai = TestVat(m.vat()).dai(m.urns(cdp));
        if (dai < wad * RAY) {
            uint256 art = (wad * RAY - dai) / rate;
            dart = _toInt(art * rate < wad * RAY ? art + 1 : art);
        }
    }
}

/// Sky's LockstakeEngine urn: hopes the engine in the Vat, as LockstakeUrn.init does, and stakes in
/// the engine's farm for it (the real urn is an EIP-1167 clone that stakes its lsSKY; the test farm
/// takes no token).
contract TestLockstakeUrn {
    address public immutable engine;
    address public immutable vat;

    constructor(address vat_) {
        engine = msg.sender;
        vat = vat_;
        TestVat(vat_).hope(msg.sender);
    }

    modifier isEngine() {
        require(msg.sender == engine, "LockstakeUrn/not-engine");
        _;
    }

    function stake(address farm, uint256 wad, uint16 ref) external isEngine {
        TestStakingRewards(farm).stake(wad, ref);
    }

    function withdraw(address farm, uint256 wad) external isEngine {
        TestStakingRewards(farm).withdraw(wad);
    }

    /// The farm's reward paid to the urn, passed on to `usr` whole (LockstakeUrn.getReward).
    function getReward(address farm, address usr) external isEngine returns (uint256 amt) {
        TestStakingRewards(farm).getReward();
        TestGemLike token = TestGemLike(TestStakingRewards(farm).rewardsToken());
        amt = token.balanceOf(address(this));
        token.transfer(usr, amt);
    }
}

/// A staking engine farm: Sky's StakingRewards (endgame-toolkit's Synthetix fork) with its views,
/// reward arithmetic and events, but no staking token taken or given back (the test urns hold none).
contract TestStakingRewards {
    event RewardAdded(uint256 reward);
    event Staked(address indexed user, uint256 amount);
    event Referral(uint16 indexed referral, address indexed user, uint256 amount);
    event Withdrawn(address indexed user, uint256 amount);
    event RewardPaid(address indexed user, uint256 reward);

    address public immutable rewardsToken;
    address public immutable stakingToken;
    uint256 public periodFinish;
    uint256 public rewardRate;
    uint256 public rewardsDuration = 7 days;
    uint256 public lastUpdateTime;
    uint256 public rewardPerTokenStored;
    mapping(address => uint256) public userRewardPerTokenPaid;
    mapping(address => uint256) public rewards;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    constructor(address rewardsToken_, address stakingToken_) {
        rewardsToken = rewardsToken_;
        stakingToken = stakingToken_;
    }

    function lastTimeRewardApplicable() public view returns (uint256) {
        return block.timestamp < periodFinish ? block.timestamp : periodFinish;
    }

    function rewardPerToken() public view returns (uint256) {
        if (totalSupply == 0) return rewardPerTokenStored;
        return rewardPerTokenStored + (lastTimeRewardApplicable() - lastUpdateTime) * rewardRate * 1e18 / totalSupply;
    }

    function earned(address account) public view returns (uint256) {
        return balanceOf[account] * (rewardPerToken() - userRewardPerTokenPaid[account]) / 1e18 + rewards[account];
    }

    modifier updateReward(address account) {
        rewardPerTokenStored = rewardPerToken();
        lastUpdateTime = lastTimeRewardApplicable();
        if (account != address(0)) {
            rewards[account] = earned(account);
            userRewardPerTokenPaid[account] = rewardPerTokenStored;
        }
        _;
    }

    function stake(uint256 amount, uint16 referral) external updateReward(msg.sender) {
        require(amount > 0, "Cannot stake 0");
        totalSupply += amount;
        balanceOf[msg.sender] += amount;
        emit Staked(msg.sender, amount);
        emit Referral(referral, msg.sender, amount);
    }

    function withdraw(uint256 amount) public updateReward(msg.sender) {
        require(amount > 0, "Cannot withdraw 0");
        totalSupply -= amount;
        balanceOf[msg.sender] -= amount;
        emit Withdrawn(msg.sender, amount);
    }

    function getReward() public updateReward(msg.sender) {
        uint256 reward = rewards[msg.sender];
        if (reward > 0) {
            rewards[msg.sender] = 0;
            TestGemLike(rewardsToken).transfer(msg.sender, reward);
            emit RewardPaid(msg.sender, reward);
        }
    }

    /// Its distribution's call, open here: `reward` (already sent) paid out over rewardsDuration.
    function notifyRewardAmount(uint256 reward) external updateReward(address(0)) {
        if (block.timestamp >= periodFinish) {
            rewardRate = reward / rewardsDuration;
        } else {
            rewardRate = (reward + (periodFinish - block.timestamp) * rewardRate) / rewardsDuration;
        }
        uint256 balance = TestGemLike(rewardsToken).balanceOf(address(this));
        require(rewardRate <= balance / rewardsDuration, "Provided reward too high");
        lastUpdateTime = block.timestamp;
        periodFinish = block.timestamp + rewardsDuration;
        emit RewardAdded(reward);
    }
}

/// Sky's LockstakeEngine (makerdao/lockstake 602edbb, Nov 2024; the same signatures for these in the
/// SKY-based engine live since 2025) as a reader sees it: urns per owner, locked collateral as
/// the ilk's ink, debt drawn with the Jug's rate. Without tokens (lock takes no MKR/SKY, draw pays
/// `to` in the Vat's internal dai, wipe takes the caller's internal dai, which needs
/// vat.hope(engine); `usds` is only an address to report), vote delegates or auctions (those views
/// stay zero). Its farms are test StakingRewards that take no token.
contract TestLockstakeEngine {
    event File(bytes32 indexed what, address data);
    event File(bytes32 indexed what, uint256 data);
    event Open(address indexed owner, uint256 indexed index, address urn);
    event Hope(address indexed owner, uint256 indexed index, address indexed usr);
    event Nope(address indexed owner, uint256 indexed index, address indexed usr);
    event Lock(address indexed owner, uint256 indexed index, uint256 wad, uint16 ref);
    event Free(address indexed owner, uint256 indexed index, address to, uint256 wad, uint256 freed);
    event Draw(address indexed owner, uint256 indexed index, address to, uint256 wad);
    event Wipe(address indexed owner, uint256 indexed index, uint256 wad);
    event AddFarm(address farm);
    event SelectFarm(address indexed owner, uint256 indexed index, address indexed farm, uint16 ref);
    event GetReward(address indexed owner, uint256 indexed index, address indexed farm, address to, uint256 amt);

    /// Kept for the ABI only.
    mapping(address => uint256) public wards;
    mapping(address => uint256) public ownerUrnsCount;
    mapping(address => mapping(uint256 => address)) public ownerUrns;
    mapping(address => address) public urnOwners;
    mapping(address => mapping(address => uint256)) public urnCan;
    mapping(address => address) public urnVoteDelegates;
    mapping(address => address) public urnFarms;
    /// The farms governance added (1: active), as the real engine's FarmStatus.
    mapping(address => uint256) public farms;
    mapping(address => uint256) public urnAuctions;
    TestJug public jug;
    uint256 public fee; // exit fee [wad]
    TestVat public immutable vat;
    bytes32 public immutable ilk;
    /// The token lent (the real engine's is its UsdsJoin's); nothing is minted here.
    address public immutable usds;

    constructor(address vat_, address jug_, bytes32 ilk_, address usds_) {
        wards[msg.sender] = 1;
        vat = TestVat(vat_);
        jug = TestJug(jug_);
        ilk = ilk_;
        usds = usds_;
    }

    function file(bytes32 what, address data) external {
        if (what == "jug") jug = TestJug(data);
        else revert("LockstakeEngine/file-unrecognized-param");
        emit File(what, data);
    }

    function file(bytes32 what, uint256 data) external {
        if (what == "fee") {
            require(data < WAD, "LockstakeEngine/fee-equal-or-greater-wad");
            fee = data;
        } else {
            revert("LockstakeEngine/file-unrecognized-param");
        }
        emit File(what, data);
    }

    /// LockstakeEngine's _divup: the least z with z * y >= x (0 for x = 0).
    function _divup(uint256 x, uint256 y) internal pure returns (uint256) {
        return x != 0 ? (x - 1) / y + 1 : 0;
    }

    function _toInt(uint256 x) internal pure returns (int256) {
        require(x <= uint256(type(int256).max), "LockstakeEngine/overflow");
        return int256(x);
    }

    function _getUrn(address owner, uint256 index) internal view returns (address urn) {
        urn = ownerUrns[owner][index];
        require(urn != address(0), "LockstakeEngine/invalid-urn");
    }

    function _getAuthedUrn(address owner, uint256 index) internal view returns (address urn) {
        urn = _getUrn(owner, index);
        require(owner == msg.sender || urnCan[urn][msg.sender] == 1, "LockstakeEngine/urn-not-authorized");
    }

    function isUrnAuth(address owner, uint256 index, address usr) external view returns (bool) {
        address urn = _getUrn(owner, index);
        return owner == usr || urnCan[urn][usr] == 1;
    }

    /// The sender's next urn: `index` must be how many it has opened so far.
    function open(uint256 index) external returns (address urn) {
        require(index == ownerUrnsCount[msg.sender]++, "LockstakeEngine/wrong-urn-index");
        urn = address(new TestLockstakeUrn(address(vat)));
        ownerUrns[msg.sender][index] = urn;
        urnOwners[urn] = msg.sender;
        emit Open(msg.sender, index, urn);
    }

    function hope(address owner, uint256 index, address usr) external {
        urnCan[_getAuthedUrn(owner, index)][usr] = 1;
        emit Hope(owner, index, usr);
    }

    function nope(address owner, uint256 index, address usr) external {
        urnCan[_getAuthedUrn(owner, index)][usr] = 0;
        emit Nope(owner, index, usr);
    }

    function addFarm(address farm) external {
        farms[farm] = 1;
        emit AddFarm(farm);
    }

    /// The farm the urn's ink is staked in: unstaked from the last, staked in this one.
    function selectFarm(address owner, uint256 index, address farm, uint16 ref) external {
        address urn = _getAuthedUrn(owner, index);
        require(farm == address(0) || farms[farm] == 1, "LockstakeEngine/farm-unsupported-or-deleted");
        address prev = urnFarms[urn];
        require(prev != farm, "LockstakeEngine/same-farm");
        (uint256 ink,) = vat.urns(ilk, urn);
        if (prev != address(0) && ink > 0) TestLockstakeUrn(urn).withdraw(prev, ink);
        urnFarms[urn] = farm;
        if (farm != address(0) && ink > 0) TestLockstakeUrn(urn).stake(farm, ink, ref);
        emit SelectFarm(owner, index, farm, ref);
    }

    /// What the urn's farm has earned, paid to `to` (the engine's getReward).
    function getReward(address owner, uint256 index, address farm, address to) external returns (uint256 amt) {
        address urn = _getAuthedUrn(owner, index);
        require(farms[farm] > 0, "LockstakeEngine/farm-unsupported");
        amt = TestLockstakeUrn(urn).getReward(farm, to);
        emit GetReward(owner, index, farm, to, amt);
    }

    /// Anyone may lock into any urn, as in the real engine: gem slipped in and frobbed as ink, and
    /// staked in the urn's farm.
    function lock(address owner, uint256 index, uint256 wad, uint16 ref) external {
        address urn = _getUrn(owner, index);
        int256 dink = _toInt(wad);
        vat.slip(ilk, urn, dink);
        vat.frob(ilk, urn, urn, address(0), dink, 0);
        address farm = urnFarms[urn];
        if (farm != address(0) && wad > 0) TestLockstakeUrn(urn).stake(farm, wad, ref);
        emit Lock(owner, index, wad, ref);
    }

    /// Unlock `wad`; `freed` is what the owner would get after the exit fee (wad - wad*fee/WAD).
    function free(address owner, uint256 index, address to, uint256 wad) external returns (uint256 freed) {
        address urn = _getAuthedUrn(owner, index);
        int256 dink = _toInt(wad);
        address farm = urnFarms[urn];
        if (farm != address(0) && wad > 0) TestLockstakeUrn(urn).withdraw(farm, wad);
        vat.frob(ilk, urn, urn, address(0), -dink, 0);
        vat.slip(ilk, urn, -dink);
        freed = wad - wad * fee / WAD;
        emit Free(owner, index, to, wad, freed);
    }

    /// Draw exactly `wad` (dart = divup(wad * RAY, rate) after a drip), paid to `to` in the Vat.
    function draw(address owner, uint256 index, address to, uint256 wad) external {
        address urn = _getAuthedUrn(owner, index);
        uint256 rate = jug.drip(ilk);
        int256 dart = _toInt(_divup(wad * RAY, rate));
        vat.frob(ilk, urn, address(0), address(this), 0, dart);
        vat.move(address(this), to, wad * RAY);
        emit Draw(owner, index, to, wad);
    }

    /// Pay back `wad` of the caller's Vat dai: art falls by wad * RAY / rate (rounded down, no drip).
    function wipe(address owner, uint256 index, uint256 wad) external {
        address urn = _getUrn(owner, index);
        vat.move(msg.sender, address(this), wad * RAY);
        (, uint256 rate,,,) = vat.ilks(ilk);
        int256 dart = _toInt(wad * RAY / rate);
        vat.frob(ilk, urn, address(0), address(this), 0, -dart);
        emit Wipe(owner, index, wad);
    }

    /// Pay back all the urn's debt: wad = divup(art * rate, RAY) of the caller's Vat dai.
    function wipeAll(address owner, uint256 index) external returns (uint256 wad) {
        address urn = _getUrn(owner, index);
        (, uint256 art) = vat.urns(ilk, urn);
        int256 dart = _toInt(art);
        (, uint256 rate,,,) = vat.ilks(ilk);
        wad = _divup(art * rate, RAY);
        vat.move(msg.sender, address(this), wad * RAY);
        vat.frob(ilk, urn, address(0), address(this), 0, -dart);
        emit Wipe(owner, index, wad);
    }
}
