/**
 * The account keys of the derived networks (CONTRACT C15 "Addresses"): `XPUB_BITCOIN`,
 * `XPUB_ETHEREUM`, `XPUB_TRON` and `XPUB_BNB_SMART_CHAIN`, read once at start. A malformed value
 * stops the service at start: the layer fails with a message naming the variable (printed to stderr,
 * exit 1). An unset one leaves its network without addresses (create_address answers 10202).
 */
import type { HDKey } from "@scure/bip32"
import { Config, Context, Effect, Layer } from "effect"
import { type DerivedNetwork, loadXpubs, xpubEnvName } from "./Addresses.ts"

export class AccountKeys extends Context.Service<
  AccountKeys,
  {
    /** The account key of a derived network, or undefined when its XPUB_* is unset. */
    readonly keyOf: (network: DerivedNetwork) => HDKey | undefined
  }
>()("core/AccountKeys") {
  /** From given keys (tests, tools). */
  static readonly fromKeys = (keys: ReadonlyMap<DerivedNetwork, HDKey>) => AccountKeys.of({ keyOf: (n) => keys.get(n) })

  static readonly fromEnv = Layer.effect(
    AccountKeys,
    Effect.gen(function* () {
      const env: Record<string, string | undefined> = {}
      for (const network of [1, 2, 3, 4] as const) {
        const name = xpubEnvName(network)
        env[name] = yield* Config.String(name).pipe(Config.withDefault(""))
      }
      let keys: ReadonlyMap<DerivedNetwork, HDKey>
      try {
        keys = loadXpubs(env)
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        console.error(`core wallet service: ${message}`)
        return yield* Effect.die(new Error(message))
      }
      return AccountKeys.fromKeys(keys)
    })
  )
}
