/**
 * Secrets at rest (CONTRACT C19 §6), the one module that holds SECRETS_KEY. Stored usable secrets (app
 * webhook secrets, partner outbound pkeys and webhook secrets, the generated acquirer secret) are sealed
 * with AES-256-GCM (node:crypto) under it, each with a fresh 96-bit nonce and its place (table.column) as
 * associated data, so a value copied to another column does not open. Stored form:
 * `aead1:` + base64url(nonce ‖ tag ‖ ciphertext). TransferOrder codes are keyed by it (`keyFor`), so
 * nothing read from the database alone yields a usable secret or a payout code.
 *
 * SECRETS_KEY is 32 bytes as 64 hex digits or base64; a malformed value stops the start. Unset: generated
 * on first start into DATA_DIR/secrets.key (mode 0600) and read from there afterwards; with DATABASE_URL
 * set the start warns that processes on other machines must be given the same key. At start, values still
 * in clear text (stored before C19) are sealed in place.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { clearSecrets, resealSecret, type SecretColumn, secretColumns } from "../../sql/SecretRepo.ts"
import { AppConfigService } from "./Config.ts"
import { makeDb } from "./db/Sql.ts"

const prefix = "aead1:"
const nonceBytes = 12
const tagBytes = 16

/** Where a sealed value lives (its associated data). */
export type SecretPlace = `${SecretColumn["table"]}.${SecretColumn["column"]}`

/** 32 bytes from 64 hex digits or base64 (standard or url-safe, padded or not); undefined otherwise. */
export const parseSecretsKey = (text: string): Buffer | undefined => {
  const value = text.trim()
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, "hex")
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) {
    const bytes = Buffer.from(value.replace(/-/g, "+").replace(/_/g, "/"), "base64")
    if (bytes.length === 32) return bytes
  }
  return undefined
}

export const sealWith = (key: Buffer, place: string, plain: string): string => {
  const nonce = randomBytes(nonceBytes)
  const cipher = createCipheriv("aes-256-gcm", key, nonce)
  cipher.setAAD(Buffer.from(place, "utf8"))
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()])
  return prefix + Buffer.concat([nonce, cipher.getAuthTag(), body]).toString("base64url")
}

/** The clear value, or undefined when `stored` is not sealed under this key for this place. */
export const openWith = (key: Buffer, place: string, stored: string): string | undefined => {
  if (!stored.startsWith(prefix)) return undefined
  const raw = Buffer.from(stored.slice(prefix.length), "base64url")
  if (raw.length < nonceBytes + tagBytes) return undefined
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, nonceBytes))
    decipher.setAAD(Buffer.from(place, "utf8"))
    decipher.setAuthTag(raw.subarray(nonceBytes, nonceBytes + tagBytes))
    return Buffer.concat([decipher.update(raw.subarray(nonceBytes + tagBytes)), decipher.final()]).toString("utf8")
  } catch {
    return undefined
  }
}

export const isSealed = (stored: string): boolean => stored.startsWith(prefix)

/** A setting the start cannot go on with: one line on stderr naming the variable, then the start fails. */
const stopStart = (message: string) =>
  Effect.suspend(() => {
    console.error(`core wallet service: ${message}`)
    return Effect.die(new Error(message))
  })

export class Secrets extends Context.Service<
  Secrets,
  {
    /** The stored form of a secret that lives at `place`. */
    readonly seal: (place: SecretPlace, plain: string) => string
    /** The secret a stored value holds; a value that does not open under SECRETS_KEY is a defect (wrong key). */
    readonly open: (place: SecretPlace, stored: string) => Effect.Effect<string>
    /** `open` for a mapping function: throws (a defect where it runs inside an effect). */
    readonly openSync: (place: SecretPlace, stored: string) => string
    /** A 32-byte key for one purpose (an HMAC key), derived from SECRETS_KEY. */
    readonly keyFor: (purpose: string) => Buffer
  }
>()("core/Secrets") {
  static readonly layer = Layer.effect(
    Secrets,
    Effect.gen(function* () {
      const config = yield* AppConfigService
      const db = yield* makeDb
      let key: Buffer
      if (Option.isSome(config.secretsKey)) {
        const parsed = parseSecretsKey(Redacted.value(config.secretsKey.value))
        if (parsed === undefined) return yield* stopStart("SECRETS_KEY: must be 32 bytes as 64 hex digits or base64")
        key = parsed
      } else {
        const file = join(config.dataDir, "secrets.key")
        if (!existsSync(file)) {
          mkdirSync(config.dataDir, { recursive: true })
          try {
            // "wx": a process that lost the race to create it reads the winner's key below.
            writeFileSync(file, randomBytes(32).toString("hex") + "\n", { mode: 0o600, flag: "wx" })
            chmodSync(file, 0o600)
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
          }
        }
        const parsed = parseSecretsKey(readFileSync(file, "utf8"))
        if (parsed === undefined)
          return yield* stopStart(`SECRETS_KEY: ${file} does not hold 32 bytes as 64 hex digits or base64`)
        key = parsed
        if (Option.isSome(config.databaseUrl))
          yield* Effect.logWarning(
            `SECRETS_KEY is unset: using ${file}; processes on other machines sharing DATABASE_URL must be given the same key (SECRETS_KEY)`
          )
      }
      const seal = (place: SecretPlace, plain: string) => sealWith(key, place, plain)
      const openSync = (place: SecretPlace, stored: string) => {
        const plain = openWith(key, place, stored)
        if (plain === undefined)
          throw new Error(`${place}: a stored secret does not open under SECRETS_KEY (another key?)`)
        return plain
      }
      const open = (place: SecretPlace, stored: string) => Effect.sync(() => openSync(place, stored))
      const keyFor = (purpose: string) => createHmac("sha256", key).update(`core-secrets:${purpose}`, "utf8").digest()
      // Values stored in clear text before C19 are sealed in place (each only while it is still that value).
      for (const at of secretColumns) {
        const place: SecretPlace = `${at.table}.${at.column}`
        for (const row of yield* Effect.orDie(db(clearSecrets(at, prefix))))
          yield* Effect.orDie(db(resealSecret(at, row.key, row.value, seal(place, row.value))))
      }
      return Secrets.of({ seal, open, openSync, keyFor })
    })
  )
}
