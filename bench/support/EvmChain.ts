/**
 * The EVM side of the evm_scanner benchmark: Hardhat's node (the `hardhat` package) on a free port
 * with tools/evm/devnet's config, MinimalToken deployed from its shipped bytecode, and blocks of
 * token transfers made with automine off (every transfer signed locally, then one evm_mine per block).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import {
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  http,
  type Abi,
  type Address,
  type Hex
} from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { hardhat } from "viem/chains"
import { freePort, root } from "./Service.ts"

const devnet = join(root, "tools/evm/devnet")
/** Hardhat's first default account. */
const funderKey: Hex = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"

export const startHardhat = async () => {
  const port = await freePort()
  const child: ChildProcess = spawn(
    process.execPath,
    [join(root, "node_modules/hardhat/dist/src/cli.js"), "node", "--port", String(port), "--hostname", "127.0.0.1"],
    { cwd: devnet, stdio: ["ignore", "pipe", "pipe"] }
  )
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  while (!output.includes("Started HTTP")) {
    if (child.exitCode !== null) throw new Error(`hardhat node exited ${child.exitCode}:\n${output}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  const url = `http://127.0.0.1:${port}`
  const transport = http(url, { retryCount: 0 })
  const chain = createPublicClient({ chain: hardhat, transport })
  const funder = privateKeyToAccount(funderKey)
  const wallet = createWalletClient({ chain: hardhat, transport, account: funder })
  const rpc = (method: string, params: ReadonlyArray<unknown> = []) =>
    chain.request({ method: method as any, params: params as any })

  const token = JSON.parse(readFileSync(join(devnet, "MinimalToken.json"), "utf8")) as { abi: Abi; bytecode: Hex }
  const deployToken = async (): Promise<Address> => {
    const hash = await wallet.deployContract({
      abi: token.abi,
      bytecode: token.bytecode,
      args: ["Bench", "BNCH", 6, 10n ** 30n],
      account: funder,
      chain: hardhat
    })
    return (await chain.waitForTransactionReceipt({ hash })).contractAddress!
  }

  /** `blocks` blocks of `perBlock` transfers of 1 unit each, to the addresses in turn; answers the first and last heights. */
  const makeBlocks = async (contract: Address, to: ReadonlyArray<Address>, blocks: number, perBlock: number) => {
    await rpc("evm_setAutomine", [false])
    let nonce = await chain.getTransactionCount({ address: funder.address, blockTag: "pending" })
    const first = Number(await chain.getBlockNumber({ cacheTime: 0 })) + 1
    for (let b = 0; b < blocks; b++) {
      const raws: Array<Hex> = []
      for (let i = 0; i < perBlock; i++) {
        raws.push(
          await funder.signTransaction({
            chainId: hardhat.id,
            type: "eip1559",
            to: contract,
            data: encodeFunctionData({
              abi: erc20Abi,
              functionName: "transfer",
              args: [to[(b * perBlock + i) % to.length], 1_000_000n]
            }),
            gas: 80_000n,
            maxFeePerGas: 10n ** 11n,
            maxPriorityFeePerGas: 10n ** 9n,
            nonce: nonce++
          })
        )
      }
      await Promise.all(raws.map((raw) => chain.sendRawTransaction({ serializedTransaction: raw })))
      await rpc("evm_mine")
    }
    await rpc("evm_setAutomine", [true])
    return { first, last: Number(await chain.getBlockNumber({ cacheTime: 0 })) }
  }

  return {
    url,
    chain,
    deployToken,
    makeBlocks,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
      })
  }
}
