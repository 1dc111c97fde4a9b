/**
 * C19 §6 secrets at rest over HTTP, the storage rules checked in SQL on the server path: app webhook
 * secrets, partner outbound pkeys and webhook secrets and the generated acquirer secret are stored sealed
 * (AES-256-GCM under SECRETS_KEY, `aead1:`), never in clear; a TransferOrder's code is nowhere in its row;
 * values stored in clear before C19 are sealed at the next start. SECRETS_KEY unset: generated once into
 * DATA_DIR/secrets.key (0600); malformed: the start stops naming it. add_federation_partner refuses a plain
 * http baseUrl unless FEDERATION_ALLOW_HTTP=true (400 10001 naming it). The file's service runs with the
 * defaults (no SECRETS_KEY, no FEDERATION_ALLOW_HTTP); the ledger audit runs after each test.
 */
import { assert, describe, it } from "@effect/vitest"
import { createHash, createHmac } from "node:crypto"
import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { openWith, parseSecretsKey } from "../../src/platform/Secrets.ts"
import { assertRejected, errorCode, serviceForFile } from "../support/Fixtures.ts"
import { merchantOf } from "../support/Merchant.ts"
import { withDatabase } from "../support/Postgres.ts"
import { itWithServer, startService } from "../support/Service.ts"

const { service, client } = serviceForFile({ setup: async () => {} })
const shop = merchantOf(client)

const keyFile = () => join(service().dataDir, "secrets.key")
const sql = <A>(text: string) =>
  withDatabase(service().databaseUrl!, (q) => q.unsafe(text) as any) as Promise<ReadonlyArray<A>>

const partner = (partnerId: string, baseUrl: string) => ({
  partnerId,
  name: partnerId,
  baseUrl,
  outboundAppId: "12345",
  outboundPkey: `pk-${partnerId}-0123456789abcdef0123456789abcdef`,
  webhookSecret: `ws-${partnerId}-fedcba9876543210fedcba9876543210`,
  capabilities: ["Federation", "FederationWallet"]
})

describe("SECRETS_KEY", () => {
  it("unset: generated on first start into DATA_DIR/secrets.key, mode 0600, 32 bytes", () => {
    const stat = statSync(keyFile())
    assert.strictEqual(stat.mode & 0o777, 0o600)
    assert.isDefined(parseSecretsKey(readFileSync(keyFile(), "utf8")))
    if (service().databaseUrl !== undefined)
      assert.include(service().log(), "processes on other machines", "the start warns under DATABASE_URL")
  })

  it("a malformed SECRETS_KEY stops the start, naming it (never its value)", async () => {
    for (const bad of ["too-short", "zz".repeat(32), "00".repeat(31)]) {
      const failed = await startService({ env: { SECRETS_KEY: bad } }).then(
        async (s) => {
          await s.stop()
          return ""
        },
        (e: Error) => e.message
      )
      assert.include(failed, "SECRETS_KEY", `${bad} must stop the start`)
      assert.notInclude(failed.split("\n").find((l) => l.includes("SECRETS_KEY")) ?? "", bad)
    }
  }, 120_000)
})

describe("add_federation_partner without FEDERATION_ALLOW_HTTP", () => {
  it("a plain http baseUrl is 400 10001 naming baseUrl; https is taken", async () => {
    assertRejected(
      await client.priv("POST", "add_federation_partner", partner("H1", "http://partner.example")),
      400,
      errorCode.InvalidRequest,
      "http",
      "baseUrl"
    )
    const added = await client.priv("POST", "add_federation_partner", partner("S1", "https://partner.example"))
    assert.strictEqual(added.status, 200, JSON.stringify(added.body))
  })
})

describe("the federation webhook", () => {
  it("answers one 401 message for an unknown partner, a missing and a bad signature", async () => {
    assert.strictEqual(
      (await client.priv("POST", "add_federation_partner", partner("W1", "https://w1.example"))).status,
      200
    )
    const raw = JSON.stringify({ eventId: "e1", type: "PaymentOrder.Paid", createdAt: new Date().toISOString() })
    const post = (partnerId: string, headers: Record<string, string>) =>
      client.call("POST", `/auth/v1/app/federation_webhook?partner=${partnerId}`, {
        raw,
        headers: { "content-type": "application/json", ...headers }
      })
    const signed = { "x-webhook-timestamp": String(Math.floor(Date.now() / 1000)), "x-webhook-signature": "v1=00" }
    const replies = [await post("NOPE", signed), await post("W1", signed), await post("W1", {})]
    for (const reply of replies) assertRejected(reply, 401, errorCode.FederationSignatureInvalid)
    assert.lengthOf(new Set(replies.map((r) => r.body.error?.message)), 1, JSON.stringify(replies.map((r) => r.body)))
  })
})

describe("storage (SQL on the server path)", () => {
  itWithServer("webhook, partner and acquirer secrets are sealed; a payout code is nowhere in its row", async () => {
    const merchant = await client.party({ fund: { USDT: "100" } })
    const app = await shop.createApp(merchant.id, "Sealed shop")
    const p = partner("S2", "https://partner2.example")
    assert.strictEqual((await client.priv("POST", "add_federation_partner", p)).status, 200)
    const payout = shop.ok(
      await shop.call(app, "POST", "put_transfer_order", { currency: "USDT", orderAmount: "1", externalId: "sealed-1" })
    )
    assert.match(payout.code, /^T/)

    const [appRow] = await sql<{ webhook_secret: string }>(`SELECT webhook_secret FROM apps WHERE id = ${app.appId}`)
    const [partnerRow] = await sql<{ outbound_pkey: string; webhook_secret: string }>(
      `SELECT outbound_pkey, webhook_secret FROM federation_partners WHERE partner_id = 'S2'`
    )
    const acquirer = await sql<{ secret: string }>(`SELECT secret FROM acquirer_secrets`)
    const stored = [appRow.webhook_secret, partnerRow.outbound_pkey, partnerRow.webhook_secret, acquirer[0].secret]
    for (const value of stored) assert.match(value, /^aead1:[A-Za-z0-9_-]+$/)
    for (const clear of [(app as any).webhookSecret, p.outboundPkey, p.webhookSecret])
      for (const value of stored) assert.notInclude(value, clear)
    // Each opens only under the service's key and at its own place.
    const key = parseSecretsKey(readFileSync(keyFile(), "utf8"))!
    assert.strictEqual(openWith(key, "apps.webhook_secret", appRow.webhook_secret), (app as any).webhookSecret)
    assert.isUndefined(openWith(key, "federation_partners.webhook_secret", appRow.webhook_secret), "another place")
    assert.isUndefined(openWith(Buffer.alloc(32), "apps.webhook_secret", appRow.webhook_secret), "another key")

    const rows = await sql<{ row: string }>(
      `SELECT row_to_json(p)::text AS row FROM payment_orders p WHERE tx_id = ${payout.id}`
    )
    assert.lengthOf(rows, 1)
    assert.notInclude(rows[0].row, payout.code)
    assert.notInclude(rows[0].row, payout.code.slice(1))
    // The code is keyed by SECRETS_KEY (a file outside the database), and by nothing the database holds.
    const payoutKey = createHmac("sha256", key).update("core-secrets:payout-codes", "utf8").digest()
    const derived = "T" + createHmac("sha256", payoutKey).update(`payout-code:${payout.id}`, "utf8").digest("base64url")
    assert.strictEqual(derived, payout.code)
    const keyHashes = await sql<{ hash: Buffer }>(`SELECT key_hash AS hash FROM service_keys`)
    for (const { hash } of keyHashes) {
      const old = createHash("sha256").update("payout-codes:").update(hash).digest()
      assert.notStrictEqual(
        "T" + createHmac("sha256", old).update(`payout-code:${payout.id}`).digest("base64url"),
        payout.code
      )
    }
    const anywhere = await sql<{ n: string }>(
      `SELECT count(*)::text AS n FROM payment_orders WHERE code = '${payout.code}'`
    )
    assert.strictEqual(anywhere[0].n, "0")
  })

  itWithServer(
    "a secret stored in clear before C19 is sealed at the next start and still signs",
    async () => {
      const merchant = await client.party()
      const app = await shop.createApp(merchant.id, "Old shop")
      const clear = "clear-secret-from-before-c19-0123456789"
      await sql(`UPDATE apps SET webhook_secret = '${clear}' WHERE id = ${app.appId}`)
      await sql(`UPDATE federation_partners SET outbound_pkey = 'clear-pkey-before-c19' WHERE partner_id = 'S1'`)
      const key = readFileSync(keyFile(), "utf8").trim()
      const second = await startService({ databaseUrl: service().databaseUrl, env: { SECRETS_KEY: key } })
      try {
        const [row] = await sql<{ webhook_secret: string }>(`SELECT webhook_secret FROM apps WHERE id = ${app.appId}`)
        assert.match(row.webhook_secret, /^aead1:/)
        assert.strictEqual(openWith(parseSecretsKey(key)!, "apps.webhook_secret", row.webhook_secret), clear)
        const [p] = await sql<{ outbound_pkey: string }>(
          `SELECT outbound_pkey FROM federation_partners WHERE partner_id = 'S1'`
        )
        assert.strictEqual(
          openWith(parseSecretsKey(key)!, "federation_partners.outbound_pkey", p.outbound_pkey),
          "clear-pkey-before-c19"
        )
      } finally {
        await second.stop()
      }
    },
    120_000
  )
})
