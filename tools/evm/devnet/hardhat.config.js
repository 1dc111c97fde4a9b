// The local EVM node the tests and the demo run: Hardhat's node (EDR inside), chain id 31337.
export default {}
