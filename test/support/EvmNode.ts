/**
 * A real EVM node for the EVM tests: Hardhat's node (EDR inside) from the `hardhat` package, spawned
 * on a free port with tools/evm/devnet's config and stopped after, plus the chain calls the tests
 * make — funded accounts (the node's well-known ones), the MinimalToken deployment, snapshots,
 * reverts and mining — through viem.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import {
  createPublicClient,
  createWalletClient,
  http,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
  type WalletClient
} from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { hardhat } from "viem/chains"
import { freePort, root } from "./Service.ts"

const devnet = join(root, "tools/evm/devnet")

/** Hardhat's first default account (mnemonic "test test … junk"), 10000 ETH at start. */
export const funderKey: Hex = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"

export const token = JSON.parse(readFileSync(join(devnet, "MinimalToken.json"), "utf8")) as { abi: Abi; bytecode: Hex }

export interface EvmNode {
  readonly url: string
  readonly chain: PublicClient
  readonly funder: WalletClient
  readonly rpc: <T = unknown>(method: string, params?: ReadonlyArray<unknown>) => Promise<T>
  readonly mine: (blocks?: number) => Promise<void>
  readonly stop: () => Promise<void>
  readonly log: () => string
}

export const startEvmNode = async (): Promise<EvmNode> => {
  const port = await freePort()
  const child: ChildProcess = spawn(
    process.execPath,
    [join(root, "node_modules/hardhat/dist/src/cli.js"), "node", "--port", String(port), "--hostname", "127.0.0.1"],
    { cwd: devnet, stdio: ["ignore", "pipe", "pipe"] }
  )
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  const started = Date.now()
  while (!output.includes("Started HTTP")) {
    if (child.exitCode !== null) throw new Error(`hardhat node exited ${child.exitCode}:\n${output}`)
    if (Date.now() - started > 60_000) throw new Error(`hardhat node did not start:\n${output}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  const url = `http://127.0.0.1:${port}`
  const transport = http(url, { retryCount: 0 })
  const chain = createPublicClient({ chain: hardhat, transport, pollingInterval: 50 }) as PublicClient
  const funder = createWalletClient({ chain: hardhat, transport, account: privateKeyToAccount(funderKey) })
  const rpc = <T>(method: string, params: ReadonlyArray<unknown> = []) =>
    chain.request({ method: method as any, params: params as any }) as Promise<T>
  return {
    url,
    chain,
    funder,
    rpc,
    mine: async (blocks = 1) => {
      for (let i = 0; i < blocks; i++) await rpc("evm_mine")
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
      }),
    log: () => output
  }
}

/** Deploys MinimalToken (the whole supply to the funder); answers its address. */
export const deployToken = async (
  node: EvmNode,
  symbol: string,
  decimals: number,
  supply: bigint
): Promise<Address> => {
  const hash = await node.funder.deployContract({
    abi: token.abi,
    bytecode: token.bytecode,
    args: [symbol, symbol, decimals, supply],
    account: node.funder.account!,
    chain: hardhat
  })
  const receipt = await node.chain.waitForTransactionReceipt({ hash })
  return receipt.contractAddress!
}
