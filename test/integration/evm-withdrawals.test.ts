/**
 * The reference EVM signer (tools/evm/signer, issue #27) with the reference scanner against
 * Hardhat's node: withdrawals of ETH and of an ERC-20 are long-polled from the queue, signed from the
 * hot key `1/0` of the mnemonic whose account xpub the service holds, sent, reported, bound by the
 * scanner's out item and Finished. The scanner and the signer are killed mid-flow and started again:
 * nothing is lost, nothing is sent twice (the hot address's nonce counts the transactions), and the
 * service's balances match the chain at the end.
 */
import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { formatEther, parseEther, parseUnits, type Address } from "viem"
import { mnemonicToAccount } from "viem/accounts"
import type { Party } from "../support/Client.ts"
import { CONFIRMATIONS, evmFile, bucketsAre, MNEMONIC } from "../support/EvmRails.ts"
import { eventually, startTool, type ToolProcess } from "../support/EvmTools.ts"
import { someEvmAddress } from "../support/Chain.ts"

const file = evmFile()
const { client } = file
const hot = mnemonicToAccount(MNEMONIC, { path: "m/44'/60'/0'/1/0" })

describe("the reference EVM signer against Hardhat's node", () => {
  it("sends ETH and ERC-20 withdrawals once, through kills and restarts, and the balances match the chain", async () => {
    const rails = await file.setUpRails({ defaultHotAddress: hot.address })
    await file.sendEth(hot.address, "5")
    await file.sendToken(rails, hot.address, "1000")
    const alice = await file.walletWithAddress(rails)
    const stateDir = mkdtempSync(join(tmpdir(), "signer-state-"))
    const signerEnv = (terminal: string) => ({
      SIGNER_RPC_URL: file.evm().url,
      SIGNER_SERVICE_URL: file.service().base,
      SIGNER_KEY: file.keys.signer,
      SIGNER_MNEMONIC: MNEMONIC,
      SIGNER_TOKEN_NETWORK: terminal,
      SIGNER_STATE_DIR: stateDir,
      SIGNER_POLL_SECONDS: "5",
      SIGNER_POLL_MS: "100"
    })
    const run = (tool: "scanner" | "signer", env: Record<string, string>): ToolProcess => {
      const process = startTool(tool, env)
      file.tools.push(process)
      return process
    }
    const ethScannerEnv = await file.scannerEnv(rails.eth, rails)
    let ethScanner = run("scanner", ethScannerEnv)
    run("scanner", await file.scannerEnv(rails.usdt, rails))
    let ethSigner = run("signer", signerEnv(rails.eth))
    run("signer", signerEnv(rails.usdt))
    const logs = () => file.tools.map((t) => t.log()).join("\n----\n")

    await eventually(
      "both chains started",
      async () => {
        const stats = await client.priv("GET", "monitoring_stats")
        return (stats.body.result.scanners as Array<any>).length >= 2 ? true : undefined
      },
      20_000,
      logs
    )
    await file.sendEth(alice.evm, "3")
    await file.sendToken(rails, alice.evm, "500")
    await file.evm().mine(CONFIRMATIONS)
    await eventually(
      "alice credited",
      async () =>
        (await bucketsAre(client, alice, "ETH", { free: 3, lockIn: 0 })) &&
        (await bucketsAre(client, alice, "USDT", { free: 500, lockIn: 0 })),
      20_000,
      logs
    )

    const outside = someEvmAddress() as Address
    const withdraw = async (who: Party, tokenNetwork: string, amount: string) => {
      const body = { tokenNetwork, address: outside, amount }
      const one = await client.call("POST", "/core/v1/wallet/create_withdraw", { sid: who.sid, body })
      assert.strictEqual(one.status, 200, JSON.stringify(one.body))
      const { txId, confirmationCode } = one.body.result
      const two = await client.call(
        "POST",
        `/core/v1/wallet/create_withdraw?confirmationTimetick=${txId}&confirmationCode=${confirmationCode}`,
        { sid: who.sid, body }
      )
      assert.strictEqual(two.body.result?.confirmationStatusCode, "Confirmed", JSON.stringify(two.body))
      return txId as string
    }
    const stageOf = async (who: Party, txId: string) => {
      const reply = await client.call("POST", "/core/v1/address_tx_info", { sid: who.sid, body: [txId] })
      return reply.body.result[0]?.stage as string
    }
    const stageIs = (who: Party, txId: string, stage: string) => async () =>
      (await stageOf(who, txId)) === stage ? true : undefined

    const ethOut = await withdraw(alice, rails.eth, "1")
    const usdtOut = await withdraw(alice, rails.usdt, "100")
    await eventually(
      "both sent",
      async () =>
        (await file.evm().chain.getBalance({ address: outside })) === parseEther("1") &&
        (await file.tokenBalance(rails, outside)) === parseUnits("100", 6)
          ? true
          : undefined,
      20_000,
      logs
    )
    await eventually(
      "both bound",
      async () =>
        (await stageOf(alice, ethOut)) === "OnChain" && (await stageOf(alice, usdtOut)) === "OnChain"
          ? true
          : undefined,
      20_000,
      logs
    )
    await file.evm().mine(CONFIRMATIONS)
    await eventually("ETH withdrawal Finished", stageIs(alice, ethOut, "Finished"), 20_000, logs)
    await eventually("USDT withdrawal Finished", stageIs(alice, usdtOut, "Finished"), 20_000, logs)

    // Mid-flow: the scanner is down while the signer sends; then the signer is killed and started again.
    await ethScanner.stop("SIGKILL")
    const second = await withdraw(alice, rails.eth, "0.5")
    await eventually("the second withdrawal Broadcast", stageIs(alice, second, "Broadcast"), 20_000, logs)
    await file.evm().mine(CONFIRMATIONS)
    const nonceBefore = await file.evm().chain.getTransactionCount({ address: hot.address })
    await ethSigner.stop("SIGKILL")
    // As if it died between the broadcast and the report: its state says signed, not reported.
    const stateFile = join(stateDir, `tx-${second}.json`)
    writeFileSync(stateFile, JSON.stringify({ ...JSON.parse(readFileSync(stateFile, "utf8")), reported: false }))
    ethSigner = run("signer", signerEnv(rails.eth))
    await eventually(
      "the restarted signer re-reports what it signed, without sending it again",
      async () => (ethSigner.log().includes("reporting it again (not re-sent)") ? true : undefined),
      20_000,
      logs
    )
    ethScanner = run("scanner", { ...ethScannerEnv, SCANNER_METRICS_PORT: "0" })
    await eventually("the second withdrawal Finished", stageIs(alice, second, "Finished"), 20_000, logs)
    assert.strictEqual(
      await file.evm().chain.getTransactionCount({ address: hot.address }),
      nonceBefore,
      "nothing re-sent"
    )
    assert.strictEqual(nonceBefore, 3, "three withdrawals, three transactions from the hot address")
    assert.strictEqual(await file.evm().chain.getBalance({ address: outside }), parseEther("1.5"))

    // The service against the chain: alice's balances are her deposits less what reached the outside address.
    const eth = await client.bucketsOf(alice, "ETH")
    const usdt = await client.bucketsOf(alice, "USDT")
    const deposited = await file.evm().chain.getBalance({ address: alice.evm })
    const sent = await file.evm().chain.getBalance({ address: outside })
    assert.strictEqual(String(eth.free), formatEther(deposited - sent))
    assert.strictEqual(eth.lockOut, 0)
    assert.strictEqual(usdt.free, 400)
    assert.strictEqual(
      (await file.tokenBalance(rails, alice.evm)) - (await file.tokenBalance(rails, outside)),
      parseUnits("400", 6)
    )
    assert.strictEqual(await file.tokenBalance(rails, hot.address), parseUnits("900", 6))
  }, 120_000)
})
