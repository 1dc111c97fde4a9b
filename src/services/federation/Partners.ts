/**
 * Partner records (CONTRACT C18 "Partner records"): add_federation_partner creates or wholly replaces a
 * partner; get_federation_partners lists the enabled ones with Federation; `require` is the check every
 * federation action starts with (404 10170, then 403 10172 for a missing capability). The outbound pkey
 * and the webhook secret leave this module only as `Redacted` values and are never answered.
 */
import { type SecretPlace, Secrets } from "../../platform/Secrets.ts"
import { Context, Effect, Layer, Redacted } from "effect"
import { listedPartners, partnerById, type PartnerRow, upsertPartner } from "../../../sql/FederationRepo.ts"
import { InvalidRequest, UnknownCurrency } from "../../../schema/Errors.ts"
import {
  type AddPartnerIn,
  type Capability,
  PartnerCapabilityMissing,
  PartnerCurrencyNotAllowed,
  type PartnerAdminOut,
  PartnerNotFound,
  type PartnerOut
} from "../../../schema/Federation.ts"
import { Currencies } from "../../platform/Currencies.ts"
import { AppConfigService } from "../../platform/Config.ts"
import { makeDb } from "../../platform/db/Sql.ts"
import type { PartnerEndpoint } from "./PartnerClient.ts"

export interface Partner {
  readonly partnerId: string
  readonly name: string
  readonly baseUrl: string
  readonly outboundAppId: bigint
  readonly capabilities: ReadonlyArray<Capability>
  readonly currencies: ReadonlyArray<string> | null
  readonly enabled: boolean
  readonly endpoint: PartnerEndpoint
  readonly webhookSecret: Redacted.Redacted<string>
}

const toPartner = (row: PartnerRow, open: (place: SecretPlace, stored: string) => string): Partner => ({
  partnerId: row.partnerId,
  name: row.name,
  baseUrl: row.baseUrl,
  outboundAppId: row.outboundAppId,
  capabilities: row.capabilities as ReadonlyArray<Capability>,
  currencies: row.currencies,
  enabled: row.enabled,
  endpoint: {
    partnerId: row.partnerId,
    baseUrl: row.baseUrl,
    appId: row.outboundAppId,
    pkey: Redacted.make(open("federation_partners.outbound_pkey", row.outboundPkey))
  },
  webhookSecret: Redacted.make(open("federation_partners.webhook_secret", row.webhookSecret))
})

/** An http(s) origin: no path, query, fragment or userinfo; answered as URL.origin. */
export const originOf = (text: string): string | undefined => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return undefined
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") return undefined
  if (url.pathname !== "/" && url.pathname !== "") return undefined
  if (/[?#@]/.test(text.replace(/^https?:\/\//, ""))) return undefined
  return url.origin
}

export class Partners extends Context.Service<
  Partners,
  {
    readonly add: (input: AddPartnerIn) => Effect.Effect<PartnerAdminOut, InvalidRequest | UnknownCurrency>
    readonly list: () => Effect.Effect<ReadonlyArray<PartnerOut>>
    /** An enabled partner, whatever its capabilities (10170): what every action on a partner checks first. */
    readonly requireEnabled: (partnerId: string) => Effect.Effect<Partner, PartnerNotFound>
    /** An enabled partner with every capability named (10170, then 10172). */
    readonly require: (
      partnerId: string,
      capabilities: ReadonlyArray<Capability>
    ) => Effect.Effect<Partner, PartnerNotFound | PartnerCapabilityMissing>
    /** The partner record as stored (enabled or not), for the webhook's own checks. */
    readonly find: (partnerId: string) => Effect.Effect<Partner | undefined>
    readonly requireCurrency: (partner: Partner, currency: string) => Effect.Effect<void, PartnerCurrencyNotAllowed>
  }
>()("core/FederationPartners") {
  static readonly layer = Layer.effect(
    Partners,
    Effect.gen(function* () {
      const db = yield* makeDb
      const secrets = yield* Secrets
      const currencies = yield* Currencies
      const config = yield* AppConfigService

      const add = Effect.fn("Partners.add")(function* (input: AddPartnerIn) {
        const baseUrl = originOf(input.baseUrl)
        if (baseUrl === undefined)
          return yield* new InvalidRequest({
            message: "baseUrl: must be an http(s) origin without path, query or userinfo"
          })
        // C19 §6: the partner's pkey travels to it; plain http only where FEDERATION_ALLOW_HTTP=true.
        if (baseUrl.startsWith("http:") && !config.federationAllowHttp)
          return yield* new InvalidRequest({
            message: "baseUrl: must be https (plain http only with FEDERATION_ALLOW_HTTP=true)"
          })
        if (BigInt(input.outboundAppId) <= 0n)
          return yield* new InvalidRequest({ message: "outboundAppId: must be a positive int64" })
        const capabilities = [...new Set(input.capabilities)]
        const list = input.currencies ?? null
        if (list !== null) for (const code of list) yield* currencies.require(code, "currencies")
        const { row, replaced } = yield* db(
          upsertPartner({
            partnerId: input.partnerId,
            name: input.name,
            baseUrl,
            outboundAppId: BigInt(input.outboundAppId),
            outboundPkey: secrets.seal("federation_partners.outbound_pkey", input.outboundPkey),
            webhookSecret: secrets.seal("federation_partners.webhook_secret", input.webhookSecret),
            capabilities,
            currencies: list === null ? null : [...new Set(list)],
            enabled: input.enabled ?? true
          })
        )
        return {
          partnerId: row.partnerId,
          name: row.name,
          baseUrl: row.baseUrl,
          outboundAppId: String(row.outboundAppId),
          capabilities: row.capabilities as ReadonlyArray<Capability>,
          currencies: row.currencies,
          enabled: row.enabled,
          createdAt: row.createdAt.toISOString(),
          updatedAt: row.updatedAt.toISOString(),
          replaced
        }
      })

      const list = () =>
        Effect.map(db(listedPartners), (rows) =>
          rows.map((row) => ({
            partnerId: row.partnerId,
            name: row.name,
            baseUrl: row.baseUrl,
            capabilities: row.capabilities as ReadonlyArray<Capability>,
            currencies: row.currencies
          }))
        )

      const find = (partnerId: string) =>
        Effect.map(db(partnerById(partnerId)), (row) =>
          row === undefined ? undefined : toPartner(row, secrets.openSync)
        )

      const requireEnabled = (partnerId: string) =>
        Effect.flatMap(find(partnerId), (partner) =>
          partner === undefined || !partner.enabled
            ? Effect.fail(new PartnerNotFound({ message: `partnerId: no enabled partner ${partnerId}` }))
            : Effect.succeed(partner)
        )

      const require = (partnerId: string, needed: ReadonlyArray<Capability>) =>
        Effect.gen(function* () {
          const partner = yield* requireEnabled(partnerId)
          const missing = needed.filter((capability) => !partner.capabilities.includes(capability))
          if (missing.length > 0)
            return yield* new PartnerCapabilityMissing({
              message: `partnerId: partner ${partnerId} lacks ${missing.join(", ")}`
            })
          return partner
        })

      const requireCurrency = (partner: Partner, currency: string) =>
        partner.currencies === null || partner.currencies.includes(currency)
          ? Effect.void
          : Effect.fail(
              new PartnerCurrencyNotAllowed({
                message: `currency: ${currency} is not among partner ${partner.partnerId}'s currencies`
              })
            )

      return Partners.of({ add, list, requireEnabled, require, find, requireCurrency })
    })
  )
}
