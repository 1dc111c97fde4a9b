// Compiles MinimalToken.sol with the `solc` npm package (not a dependency: `npx -y solc@0.8.37` or a
// one-off install) into MinimalToken.json (abi + bytecode), which the tests and the devnet read.
//   node tools/evm/devnet/compile-token.mjs
import { readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"

const here = import.meta.dirname
const solc = createRequire(import.meta.url)("solc")
const input = {
  language: "Solidity",
  sources: { "MinimalToken.sol": { content: readFileSync(join(here, "MinimalToken.sol"), "utf8") } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } }
  }
}
const output = JSON.parse(solc.compile(JSON.stringify(input)))
for (const e of output.errors ?? []) if (e.severity === "error") throw new Error(e.formattedMessage)
const contract = output.contracts["MinimalToken.sol"].MinimalToken
writeFileSync(
  join(here, "MinimalToken.json"),
  JSON.stringify(
    { compiler: solc.version(), abi: contract.abi, bytecode: "0x" + contract.evm.bytecode.object },
    null,
    2
  ) + "\n"
)
console.log("MinimalToken.json written by solc", solc.version())
