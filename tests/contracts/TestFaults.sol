// SPDX-License-Identifier: MIT
pragma solidity 0.8.19;

/// Burns nearly all the gas it is given, then succeeds: inside one aggregate3 it leaves the
/// sub-calls after it about 1/64 of the gas, so a heavier one fails with empty revert data.
contract GasBurner {
    function burn() external view returns (uint256 rounds) {
        while (gasleft() > 5000) {
            rounds++;
        }
    }
}

/// A view that needs about a million gas (cold storage reads): starved behind GasBurner inside
/// aggregate3, fine when run alone.
contract HeavyView {
    function heavy() external view returns (uint256 total) {
        for (uint256 slot = 1000; slot < 1450; slot++) {
            uint256 value;
            assembly {
                value := sload(slot)
            }
            total += value + 1;
        }
    }

    function reverts() external pure returns (uint256) {
        revert();
    }
}

/// A token whose name and symbol are hostile text: very long, with control and bidi characters.
contract HostileText {
    uint8 public constant decimals = 18;

    function name() external pure returns (string memory text) {
        text = "Evil\u202eToken\n\u0000";
        for (uint256 i = 0; i < 14; i++) {
            text = string.concat(text, text);
        }
    }

    function symbol() external pure returns (string memory) {
        return "EV\u0007L\r\nX";
    }
}
