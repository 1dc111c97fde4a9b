/**
 * The reference EVM signer (`npm run signer`, `--help`): long-polls the service's queue of one
 * terminal (C15 list_txs_to_send) with a C19 `signer` key, signs each withdrawal or refund with keys
 * derived from its mnemonic, sends it, and reports it (tx_send_report). See docs/EVM.md.
 */
import { log, makeBackoff, sleep } from "../shared/Backoff.ts"
import { makeServiceClient } from "../shared/ServiceClient.ts"
import { exitOnHelp, helpText, intSetting, readSettings, SettingError, type Setting } from "../shared/Settings.ts"
import { makeSignerKeys } from "./Keys.ts"
import { makeSender, type QueueItem } from "./Sender.ts"
import { makeSignedStore } from "./SignedStore.ts"

export const signerSettings: ReadonlyArray<Setting> = [
  { name: "SIGNER_RPC_URL", meaning: "the EVM node's JSON-RPC URL (http)" },
  { name: "SIGNER_SERVICE_URL", meaning: "the service's base URL, e.g. http://127.0.0.1:8080" },
  { name: "SIGNER_KEY", meaning: "a C19 `signer` service key (SERVICE_KEYS item signer:<secret>)", secret: true },
  { name: "SIGNER_MNEMONIC", meaning: "the BIP-39 mnemonic whose account xpub the service holds", secret: true },
  { name: "SIGNER_TOKEN_NETWORK", meaning: "the terminal (tokenNetwork id) whose queue this signer sends" },
  {
    name: "SIGNER_ACCOUNT_PATH",
    meaning: "the account-level BIP-32 path of that xpub; deposits 0/i, the hot address 1/0",
    fallback: "m/44'/60'/0'"
  },
  {
    name: "SIGNER_STATE_DIR",
    meaning: "where what was signed is kept (restart: re-report, never re-send)",
    fallback: "./data/signer"
  },
  { name: "SIGNER_POLL_SECONDS", meaning: "long-poll timeout of list_txs_to_send (1..45)", fallback: "30" },
  { name: "SIGNER_POLL_MS", meaning: "the backoff's first step when the node or the service is down", fallback: "1000" }
]

const main = async () => {
  exitOnHelp(process.argv.slice(2), helpText("npm run signer — the reference EVM signer (docs/EVM.md)", signerSettings))
  if (process.argv.includes("--xpub")) {
    // The xpub to give the service (XPUB_ETHEREUM / XPUB_BNB_SMART_CHAIN), and the hot address.
    const keys = makeSignerKeys(process.env.SIGNER_MNEMONIC ?? "", process.env.SIGNER_ACCOUNT_PATH || "m/44'/60'/0'")
    process.stdout.write(`xpub ${keys.xpub}\nhot ${keys.hot.address}\n`)
    return
  }
  const settings = readSettings(signerSettings, process.env)
  const pollSeconds = intSetting(settings, "SIGNER_POLL_SECONDS", 1, 45)
  const pollMs = intSetting(settings, "SIGNER_POLL_MS", 10, 3_600_000)
  const keys = makeSignerKeys(settings.SIGNER_MNEMONIC, settings.SIGNER_ACCOUNT_PATH)
  const tokenNetwork = settings.SIGNER_TOKEN_NETWORK
  const service = makeServiceClient(settings.SIGNER_SERVICE_URL, settings.SIGNER_KEY, (pollSeconds + 30) * 1000)
  const sender = makeSender({
    rpcUrl: settings.SIGNER_RPC_URL,
    service,
    keys,
    store: makeSignedStore(settings.SIGNER_STATE_DIR)
  })
  log("signer", `terminal ${tokenNetwork}: hot address ${keys.hot.address}; account xpub ${keys.xpub}`)

  const stop = new AbortController()
  // A stop waits for the item being sent, never for a long poll (an abandoned poll hands off nothing
  // it has not answered, and an answered item shows again after a restart).
  let sending = false
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => {
      stop.abort()
      if (!sending) {
        log("signer", "stopped")
        process.exit(0)
      }
    })
  const backoff = makeBackoff(pollMs)
  // From the start of the queue after every start: an item handed off before a crash shows again,
  // and what was signed for it is re-reported from the state folder, never sent again.
  let cursor = "0"
  while (!stop.signal.aborted) {
    try {
      const page = await service.get<ReadonlyArray<QueueItem>>("list_txs_to_send", {
        tokenNetwork,
        cursor,
        limit: 100,
        timeout: pollSeconds
      })
      sending = true
      for (const item of page.result) if (!stop.signal.aborted) await sender.handle(item)
      sending = false
      cursor = page.cursor ?? cursor
      backoff.succeed()
    } catch (error) {
      sending = false
      const wait = backoff.fail()
      log("signer", `${(error as Error).message.split("\n")[0]} — retrying in ${wait} ms`)
      await sleep(wait, stop.signal)
    }
  }
  log("signer", "stopped")
}

main().catch((error) => {
  log("signer", error instanceof SettingError ? error.message : `stopped: ${(error as Error).stack ?? error}`)
  process.exit(error instanceof SettingError ? 2 : 1)
})
