/**
 * The reference EVM scanner (`npm run scanner`, `--help`): follows a JSON-RPC node and feeds one
 * terminal of the service through C15's tx_list_push with a C19 `scanner` key. See docs/EVM.md.
 */
import { getAddress } from "viem"
import { log, makeBackoff, sleep } from "../shared/Backoff.ts"
import { ServiceRefusal, makeServiceClient } from "../shared/ServiceClient.ts"
import { exitOnHelp, helpText, intSetting, readSettings, SettingError, type Setting } from "../shared/Settings.ts"
import { readTerminal } from "../shared/TerminalInfo.ts"
import { makeFollower } from "./Follower.ts"
import { makeScannerMetrics } from "./Metrics.ts"
import { makeNodeReader } from "./NodeReader.ts"
import { makeWatchList } from "./WatchList.ts"

export const scannerSettings: ReadonlyArray<Setting> = [
  { name: "SCANNER_RPC_URL", meaning: "the EVM node's JSON-RPC URL (http)" },
  { name: "SCANNER_SERVICE_URL", meaning: "the service's base URL, e.g. http://127.0.0.1:8080" },
  { name: "SCANNER_KEY", meaning: "a C19 `scanner` service key (SERVICE_KEYS item scanner:<secret>)", secret: true },
  { name: "SCANNER_TERMINAL_ID", meaning: "the terminal (tokenNetwork id) this scanner feeds" },
  {
    name: "SCANNER_POLL_MS",
    meaning: "milliseconds between polls of the node; the backoff's first step",
    fallback: "1000"
  },
  {
    name: "SCANNER_METRICS_PORT",
    meaning: "port of GET /metrics (Prometheus text); 0 picks a free one",
    fallback: "9465"
  },
  {
    name: "SCANNER_TOKEN_CONTRACT",
    meaning: "the ERC-20/BEP-20 contract, only for a service without scanner_terminal (C19 §10); empty: the coin",
    fallback: ""
  },
  {
    name: "SCANNER_TOKEN_DECIMALS",
    meaning: "the asset's decimals, only for a service without scanner_terminal",
    fallback: "18"
  }
]

const main = async () => {
  exitOnHelp(
    process.argv.slice(2),
    helpText("npm run scanner — the reference EVM scanner (docs/EVM.md)", scannerSettings)
  )
  const settings = readSettings(scannerSettings, process.env)
  const pollMs = intSetting(settings, "SCANNER_POLL_MS", 10, 3_600_000)
  const metricsPort = intSetting(settings, "SCANNER_METRICS_PORT", 0, 65535)
  const decimals = intSetting(settings, "SCANNER_TOKEN_DECIMALS", 0, 36)
  const contract = settings.SCANNER_TOKEN_CONTRACT === "" ? null : settings.SCANNER_TOKEN_CONTRACT
  if (contract !== null) getAddress(contract)
  const tokenNetwork = settings.SCANNER_TERMINAL_ID
  const service = makeServiceClient(settings.SCANNER_SERVICE_URL, settings.SCANNER_KEY)
  const node = makeNodeReader(settings.SCANNER_RPC_URL)
  const metrics = makeScannerMetrics(tokenNetwork)
  const port = await metrics.serve(metricsPort)
  log("scanner", `metrics on http://0.0.0.0:${port}/metrics`)

  const stop = new AbortController()
  // Pushes are idempotent (a block pushed again is a replay), so a stop does not wait for the round.
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => {
      stop.abort()
      log("scanner", "stopped")
      process.exit(0)
    })
  const backoff = makeBackoff(pollMs)

  // The terminal: retried while the service is down; a refusal (unknown terminal, wrong key) stops.
  let terminal
  for (;;) {
    try {
      terminal = await readTerminal(service, tokenNetwork, { addressContract: contract, decimals })
      break
    } catch (error) {
      if (error instanceof ServiceRefusal) throw error
      log("scanner", `waiting for the service: ${(error as Error).message}`)
      await sleep(backoff.fail(), stop.signal)
      if (stop.signal.aborted) return metrics.close()
    }
  }
  log(
    "scanner",
    `terminal ${tokenNetwork}: ${terminal.addressContract ?? "the coin"}, ${terminal.decimals} decimals (from ${terminal.source})`
  )
  const follower = makeFollower({ node, service, watch: makeWatchList(service, tokenNetwork), terminal, metrics })
  while (!stop.signal.aborted) {
    try {
      await follower.round()
      backoff.succeed()
      await sleep(pollMs, stop.signal)
    } catch (error) {
      const wait = backoff.fail()
      log("scanner", `${(error as Error).message.split("\n")[0]} — retrying in ${wait} ms`)
      await sleep(wait, stop.signal)
    }
  }
  await metrics.close()
  log("scanner", "stopped")
}

main().catch((error) => {
  log("scanner", error instanceof SettingError ? error.message : `stopped: ${(error as Error).stack ?? error}`)
  process.exit(error instanceof SettingError ? 2 : 1)
})
