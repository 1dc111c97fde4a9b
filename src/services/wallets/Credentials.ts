/**
 * Credentials (CONTRACT C2): random secrets of 256 bits, stored only as SHA-256 hashes. A secret
 * is looked up by its hash (a preimage search, so index timing leaks nothing useful) and service
 * keys are compared hash-to-hash in constant time.
 */
import { Secrets } from "../../platform/Secrets.ts"
import { Context, Effect, Layer, Option } from "effect"
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import {
  deleteSession,
  findAppByKeyHash,
  findLiveSession,
  insertApp,
  insertServiceKey,
  insertSession,
  rotateAppKey as rotateAppKeySql,
  setAppEnabled as setAppEnabledSql,
  nextAppId,
  serviceKeyHashes,
  type Session
} from "../../../sql/CredentialRepo.ts"
import { walletById } from "../../../sql/WalletRepo.ts"
import { WalletNotFound } from "../../../schema/Errors.ts"
import { appId, type AppId, clientId, walletId, type WalletId } from "../../../schema/Ids.ts"
import type { ServiceScope } from "../../../schema/Security.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import { newWebhookSecret } from "../../platform/Signing.ts"
import { ChangeNotices } from "../../platform/ChangeNotices.ts"

export const hashSecret = (secret: string): Uint8Array => createHash("sha256").update(secret, "utf8").digest()
export const newSecret = (): string => randomBytes(32).toString("base64url")

const sameHash = (a: Uint8Array, b: Uint8Array) => a.length === b.length && timingSafeEqual(a, b)

export interface SessionIdentity {
  /** The session's own key for the edge limits (C19 §8): derived from its hash, never the sid. */
  readonly key: string
  readonly walletId: WalletId
  readonly clientId: ReturnType<typeof clientId>
  readonly project: number
  readonly flags: number
  readonly walletGroup: number
}

/** A service key as the credential middleware sees it (C19 §2). */
export interface ServiceKeyIdentity {
  readonly keyId: string
  readonly scope: ServiceScope
  readonly name: string | undefined
}

/** How long a looked-up session (with its wallet's flags) may be reused; any change drops it at once (ChangeNotices). */
export const sessionCacheMs = 1_000

export class Credentials extends Context.Service<
  Credentials,
  {
    readonly createSession: (
      wallet: WalletId,
      ttlSeconds: number
    ) => Effect.Effect<{ sid: string; expiresAt: Date }, WalletNotFound>
    readonly endSession: (sid: string) => Effect.Effect<boolean>
    readonly session: (sid: string) => Effect.Effect<Option.Option<SessionIdentity>>
    readonly createApp: (
      wallet: WalletId,
      name: string
    ) => Effect.Effect<{ appId: AppId; pkey: string; webhookSecret: string }, WalletNotFound>
    readonly app: (pkey: string) => Effect.Effect<Option.Option<{ appId: AppId; walletId: WalletId; enabled: boolean }>>
    /** C19 §5: a new pkey for the app (shown once); the old one is refused from this commit on. */
    readonly rotateAppKey: (appId: string) => Effect.Effect<Option.Option<string>>
    /** C19 §5: enable or disable the app; false when there is no such app. */
    readonly setAppEnabled: (appId: string, enabled: boolean) => Effect.Effect<boolean>
    /** The service key this secret is, or undefined (every known key compared, in constant time). */
    readonly serviceKey: (key: string) => ServiceKeyIdentity | undefined
  }
>()("core/Credentials") {
  static readonly layer = Layer.effect(
    Credentials,
    Effect.gen(function* () {
      const db = yield* makeDb
      const secrets = yield* Secrets
      const config = yield* AppConfigService
      const notices = yield* ChangeNotices
      // Every wallet request starts with this lookup. Entries are dropped when any session or wallet
      // row changes (end_session, update_wallet, block flags), by any process; expiry is checked here.
      const sessions = notices.cache<Session | undefined>(["sessions", "wallets"], sessionCacheMs)
      // Configured keys carry their scope and name; a generated or stored key is an unnamed admin (C19 §2).
      const serviceHashes: Array<Uint8Array> = config.serviceKeys.map((spec) => hashSecret(spec.secret))
      const serviceKeys: Array<ServiceKeyIdentity> = config.serviceKeys.map((spec, i) => ({
        keyId: `key-${i + 1}`,
        scope: spec.scope,
        name: spec.name
      }))
      if (serviceHashes.length === 0) {
        const stored = yield* db(serviceKeyHashes)
        if (stored.length === 0) {
          const key = newSecret()
          yield* db(insertServiceKey(hashSecret(key), "generated at first start"))
          // Printed once: only its hash is kept.
          process.stdout.write(
            `\nGenerated service key (shown once; set SERVICE_KEYS to choose your own):\n  ${key}\n\n`
          )
          serviceHashes.push(hashSecret(key))
        } else {
          serviceHashes.push(...stored.map((hash) => new Uint8Array(hash)))
        }
        for (let i = 0; i < serviceHashes.length; i++)
          serviceKeys.push({ keyId: `stored-${i + 1}`, scope: "admin", name: undefined })
      }

      const requireWallet = (wallet: WalletId) =>
        Effect.flatMap(db(walletById(wallet)), (row) =>
          row === undefined || row.id < 0n
            ? Effect.fail(new WalletNotFound({ message: `walletId: no wallet ${wallet}` }))
            : Effect.succeed(row)
        )

      return Credentials.of({
        createSession: (wallet, ttlSeconds) =>
          Effect.gen(function* () {
            yield* requireWallet(wallet)
            const sid = newSecret()
            const expiresAt = new Date(Date.now() + ttlSeconds * 1000)
            yield* db(insertSession(hashSecret(sid), wallet, expiresAt))
            return { sid, expiresAt }
          }),
        endSession: (sid) =>
          Effect.tap(db(deleteSession(hashSecret(sid))), () => Effect.sync(() => notices.changed("sessions"))),
        session: (sid) => {
          if (sid.length === 0 || sid.length > 200) return Effect.succeed(Option.none())
          const hash = hashSecret(sid)
          const key = Buffer.from(hash).toString("base64")
          return Effect.map(sessions.get(key, db(findLiveSession(hash))), (row) =>
            row === undefined || row.expiresAt.getTime() <= Date.now()
              ? Option.none()
              : Option.some({
                  key,
                  walletId: walletId(row.walletId),
                  clientId: clientId(row.clientId),
                  project: row.project,
                  flags: row.flags,
                  walletGroup: row.walletGroup
                })
          )
        },
        createApp: (wallet, name) =>
          Effect.gen(function* () {
            yield* requireWallet(wallet)
            const id = yield* db(nextAppId)
            const pkey = newSecret()
            // C16: the webhook secret signs every delivery, so it is kept as it is (shown here once).
            const webhookSecret = newWebhookSecret()
            yield* db(
              insertApp(String(id), wallet, name, hashSecret(pkey), secrets.seal("apps.webhook_secret", webhookSecret))
            )
            return { appId: appId(id), pkey, webhookSecret }
          }),
        app: (pkey) =>
          pkey.length === 0 || pkey.length > 200
            ? Effect.succeed(Option.none())
            : Effect.map(db(findAppByKeyHash(hashSecret(pkey))), (row) =>
                row === undefined
                  ? Option.none()
                  : Option.some({ appId: appId(row.id), walletId: walletId(row.walletId), enabled: row.enabled })
              ),
        rotateAppKey: (id) =>
          Effect.gen(function* () {
            const pkey = newSecret()
            return (yield* db(rotateAppKeySql(id, hashSecret(pkey)))) ? Option.some(pkey) : Option.none()
          }),
        setAppEnabled: (id, enabled) => db(setAppEnabledSql(id, enabled)),
        serviceKey: (key) => {
          if (key.length === 0 || key.length > 200) return undefined
          const hash = hashSecret(key)
          let found: ServiceKeyIdentity | undefined
          for (let i = 0; i < serviceHashes.length; i++) if (sameHash(hash, serviceHashes[i])) found ??= serviceKeys[i]
          return found
        }
      })
    })
  )
}
