// SPDX-License-Identifier: MIT
// A minimal ERC-20 for the devnet and the tests: the whole supply to the deployer, transfer and
// balanceOf, the Transfer event the scanner reads. MinimalToken.json is its solc 0.8.37 output
// (tools/evm/devnet/compile-token.mjs; optimizer on, 200 runs).
pragma solidity ^0.8.20;

contract MinimalToken {
    string public name;
    string public symbol;
    uint8 public decimals;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);

    constructor(string memory name_, string memory symbol_, uint8 decimals_, uint256 supply) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        totalSupply = supply;
        balanceOf[msg.sender] = supply;
        emit Transfer(address(0), msg.sender, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        uint256 balance = balanceOf[msg.sender];
        require(balance >= value, "balance");
        balanceOf[msg.sender] = balance - value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }
}
