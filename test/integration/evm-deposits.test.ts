/**
 * The reference EVM scanner (tools/evm/scanner, issue #27) against a real node: Hardhat's node is
 * started here, the scanner runs as its own process with a C19 `scanner` key, and deposits of ETH
 * and of an ERC-20 to derived addresses are credited after the terminal's confirmations. A forced
 * reorg (evm_snapshot, a deposit the scanner pushed, evm_revert, another branch) cancels the orphaned
 * Income and credits the new branch's (C15 "Orphaned block"); the scanner's metrics count it; a
 * scanner killed and started again resumes from the service's tip, and one whose node and service go
 * down backs off and catches up when they are back. Every balance is checked
 * against the chain at the end.
 */
import { assert, describe, it } from "@effect/vitest"
import { formatEther, formatUnits } from "viem"
import { bucketsAre, CONFIRMATIONS, evmFile } from "../support/EvmRails.ts"
import { eventually, startRelay, startTool } from "../support/EvmTools.ts"

const file = evmFile()
const { client } = file

const metricValue = (text: string, name: string): number => {
  const line = text.split("\n").find((l) => l.startsWith(name + "{") || l.startsWith(name + " "))
  return line === undefined ? NaN : Number(line.split(" ").at(-1))
}

describe("the reference EVM scanner against Hardhat's node", () => {
  it("credits ETH and ERC-20 deposits after confirmations, follows a forced reorg, resumes after a kill, backs off while node and service are down", async () => {
    const rails = await file.setUpRails()
    const alice = await file.walletWithAddress(rails)
    const bob = await file.walletWithAddress(rails)
    const ethEnv = await file.scannerEnv(rails.eth, rails)
    const usdtEnv = await file.scannerEnv(rails.usdt, rails)
    let ethScanner = startTool("scanner", ethEnv)
    const usdtScanner = startTool("scanner", usdtEnv)
    file.tools.push(usdtScanner)
    const logs = () => `eth scanner:\n${ethScanner.log()}\nusdt scanner:\n${usdtScanner.log()}`

    // The scanners start the service's chains at the node's head.
    await eventually(
      "both scanners pushing",
      async () => {
        const stats = await client.priv("GET", "monitoring_stats")
        const scanners = stats.body.result.scanners as Array<any>
        return scanners.length >= 2 ? true : undefined
      },
      20_000,
      logs
    )

    await file.sendEth(alice.evm, "1.5")
    await file.sendToken(rails, alice.evm, "250.125")
    // Not final yet: in lock_in until the confirmations are mined.
    await eventually(
      "alice's deposits seen",
      async () =>
        (await bucketsAre(client, alice, "ETH", { free: 0, lockIn: 1.5 })) &&
        (await bucketsAre(client, alice, "USDT", { free: 0, lockIn: 250.125 })),
      20_000,
      logs
    )
    await file.evm().mine(CONFIRMATIONS)
    await eventually(
      "alice credited",
      async () =>
        (await bucketsAre(client, alice, "ETH", { free: 1.5, lockIn: 0 })) &&
        (await bucketsAre(client, alice, "USDT", { free: 250.125, lockIn: 0 })),
      20_000,
      logs
    )

    // A reorg: bob's 2 ETH are pushed in a block that the node then drops for another branch.
    const snapshot = await file.evm().rpc<string>("evm_snapshot")
    await file.sendEth(bob.evm, "2")
    await eventually("bob's 2 ETH seen", () => bucketsAre(client, bob, "ETH", { free: 0, lockIn: 2 }), 20_000, logs)
    assert.isTrue(await file.evm().rpc<boolean>("evm_revert", [snapshot]))
    await file.evm().mine(1)
    await file.sendEth(bob.evm, "0.7")
    await file.evm().mine(CONFIRMATIONS)
    await eventually(
      "the 2 ETH cancelled, the 0.7 credited",
      () => bucketsAre(client, bob, "ETH", { free: 0.7, lockIn: 0 }),
      30_000,
      logs
    )
    const metrics = await (await fetch(`http://127.0.0.1:${ethEnv.SCANNER_METRICS_PORT}/metrics`)).text()
    assert.isAtLeast(metricValue(metrics, "scanner_reorgs_total"), 1, metrics)
    assert.isAtLeast(metricValue(metrics, "scanner_pushes_total"), 5, metrics)
    for (const name of ["scanner_head_height", "scanner_tip_height", "scanner_lag_blocks"])
      assert.isFalse(Number.isNaN(metricValue(metrics, name)), `${name} in\n${metrics}`)
    const history = await client.call("GET", "/core/v1/wallet/get_history_transactions?limit=100", { sid: bob.sid })
    const states = (history.body.result as Array<any>).map((row) => `${row.amount}:${row.txState}`).sort()
    assert.deepStrictEqual(states, ["0.7:8", "2:16"], JSON.stringify(history.body))
    const stats = await client.priv("GET", "monitoring_stats")
    const ethStats = (stats.body.result.scanners as Array<any>).find((s) => String(s.tokenNetwork) === rails.eth)
    assert.isAtLeast(ethStats.reorgs, 1, JSON.stringify(ethStats))

    // Killed mid-flow: a deposit mined while no scanner runs is pushed by the next one, from the service's tip.
    await ethScanner.stop("SIGKILL")
    await file.sendEth(alice.evm, "0.25")
    await file.evm().mine(CONFIRMATIONS)
    // This one reaches the node and the service through relays the test takes down and back.
    const nodeRelay = await startRelay(file.evm().url)
    const serviceRelay = await startRelay(file.service().base)
    const relayed = { SCANNER_RPC_URL: nodeRelay.url, SCANNER_SERVICE_URL: serviceRelay.url }
    ethScanner = startTool("scanner", { ...ethEnv, ...relayed, SCANNER_METRICS_PORT: "0" })
    file.tools.push(ethScanner)
    await eventually(
      "the deposit made while the scanner was down credited",
      () => bucketsAre(client, alice, "ETH", { free: 1.75, lockIn: 0 }),
      30_000,
      logs
    )

    // The node and the service down: the scanner backs off, then catches up once they are back.
    await nodeRelay.down()
    await serviceRelay.down()
    await file.sendEth(alice.evm, "0.05")
    await file.evm().mine(CONFIRMATIONS)
    await eventually(
      "the scanner backing off",
      async () => (ethScanner.log().split("retrying in").length > 3 ? true : undefined),
      20_000,
      logs
    )
    await nodeRelay.up()
    await serviceRelay.up()
    await eventually(
      "the deposit made while both were down credited",
      () => bucketsAre(client, alice, "ETH", { free: 1.8, lockIn: 0 }),
      30_000,
      logs
    )

    // Every balance in the service against the chain.
    for (const who of [alice, bob]) {
      const eth = await client.bucketsOf(who, "ETH")
      const usdt = await client.bucketsOf(who, "USDT")
      assert.strictEqual(String(eth.free), formatEther(await file.evm().chain.getBalance({ address: who.evm })))
      assert.strictEqual(String(usdt.free), formatUnits(await file.tokenBalance(rails, who.evm), 6))
    }
  }, 120_000)
})
