// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

interface IV3TransferFrom {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @dev The Balancer v3 Vault's functions a pool's INIT uses (IVaultMain's `unlock` and `settle`,
/// IVaultExtension's `initialize`, as the npm package balancer-labs/v3-interfaces 1.0.0 declares them).
interface IV3Vault {
    function unlock(bytes calldata data) external returns (bytes memory result);

    function settle(address token, uint256 amountHint) external returns (uint256 credit);

    function initialize(
        address pool,
        address to,
        address[] memory tokens,
        uint256[] memory exactAmountsIn,
        uint256 minBptAmountOut,
        bytes memory userData
    ) external returns (uint256 bptAmountOut);
}

/// A stand-in for Balancer v3's Router, whose published source needs Permit2 (not on npm): it
/// initializes a pool for its caller inside the Vault's `unlock`, as the Router's `initialize`
/// does (the Vault mints the BPT to the caller; the router pays the tokens in and settles them).
contract TestBalancerV3Router {
    IV3Vault public immutable vault;

    constructor(address vault_) {
        vault = IV3Vault(vault_);
    }

    function initialize(address pool, address[] calldata tokens, uint256[] calldata amounts)
        external
        returns (uint256)
    {
        bytes memory result = vault.unlock(abi.encodeCall(this.initializeHook, (msg.sender, pool, tokens, amounts)));
        return abi.decode(result, (uint256));
    }

    function initializeHook(address sender, address pool, address[] calldata tokens, uint256[] calldata amounts)
        external
        returns (uint256 bpt)
    {
        require(msg.sender == address(vault), "only the Vault");
        bpt = vault.initialize(pool, sender, tokens, amounts, 0, "");
        for (uint256 i = 0; i < tokens.length; i++) {
            IV3TransferFrom(tokens[i]).transferFrom(sender, address(vault), amounts[i]);
            vault.settle(tokens[i], amounts[i]);
        }
    }
}

/// An IRateProvider (v3-interfaces solidity-utils/helpers/IRateProvider.sol): a token's rate the
/// test sets, so that a pool token WITH_RATE is valued as the Vault values it.
contract TestBalancerV3RateProvider {
    uint256 public getRate = 1e18;

    function set(uint256 rate) external {
        getRate = rate;
    }
}
