/**
 * What the validation test files (validation-bad-requests, validation-limits) share: the file's
 * service, whose setup makes a wallet with a session and a merchant app of it, and the builders of
 * the bad-request table (one Case a bad request: the route, what is sent, the expected status and
 * error code, and the text the message must contain to name the offending field).
 */
import { errorCode, serviceForFile } from "./Fixtures.ts"

export interface ValidationFixture {
  readonly wallet: string
  readonly sid: string
  readonly app: { appId: string; pkey: string }
}

/**
 * Starts the file's service; its setup makes the file's wallet (with a session) and merchant app,
 * and hands them to `made`.
 */
export const validationFile = (
  made: (fixture: ValidationFixture) => void = () => {},
  env: Record<string, string> = {}
) =>
  serviceForFile({
    env,
    setup: async (c) => {
      const { id: wallet, sid } = await c.party({ clientId: "990001", extra: { name: "Validation" } })
      const app = (await c.priv("POST", "create_app", { walletId: wallet, name: "Validation shop" })).body.result
      made({ wallet, sid, app })
    }
  })

export type Auth = "service" | "session" | "merchant"

export interface Case {
  readonly name: string
  readonly method: "GET" | "POST"
  /** Path and query; `$wallet` and `$app` stand for this file's wallet and merchant app. */
  readonly path: string
  readonly auth: Auth
  /** A JSON body (`$wallet` filled in), or `raw` text sent as is. */
  readonly body?: unknown
  readonly raw?: string
  readonly contentType?: string
  readonly status: number
  readonly code: number
  /** Text the error message must contain: the field it names. */
  readonly names: string
}

export const INVALID = errorCode.InvalidRequest
export const UNKNOWN_CURRENCY = errorCode.UnknownCurrency
export const TOO_MANY_DECIMALS = errorCode.TooManyDecimals
export const FIELD_RULE = errorCode.FieldRuleViolated
export const UNSUPPORTED_MEDIA_TYPE = errorCode.UnsupportedMediaType

export const long = (n: number) => "x".repeat(n)

// Private (service key) ---------------------------------------------------------------------

export const createWallet = (name: string, body: unknown, names: string, raw?: string): Case => ({
  name: `create_wallet: ${name}`,
  method: "POST",
  path: "/private/v1/create_wallet",
  auth: "service",
  body,
  raw,
  status: 400,
  code: INVALID,
  names
})

export const posting = (fields: Record<string, unknown>) => ({
  externalId: "validation-1",
  walletId: "$wallet",
  currency: "USDT",
  amount: "1",
  direction: "credit",
  ...fields
})

export const withoutField = (field: string) => {
  const item: Record<string, unknown> = posting({})
  delete item[field]
  return item
}

export const execute = (name: string, body: unknown, names: string, raw?: string): Case => ({
  name: `execute_transactions: ${name}`,
  method: "POST",
  path: "/private/v1/execute_transactions",
  auth: "service",
  body,
  raw,
  status: 400,
  code: INVALID,
  names
})

/** A posting whose JSON has `amount` written literally (numbers JSON.stringify cannot produce). */
export const rawAmount = (literal: string) =>
  `[{"externalId":"validation-raw","walletId":"$wallet","currency":"ETH","amount":${literal},"direction":"credit"}]`

export const updateWallet = (name: string, body: unknown, names: string): Case => ({
  name: `update_wallet: ${name}`,
  method: "POST",
  path: "/private/v1/update_wallet",
  auth: "service",
  body,
  status: 400,
  code: INVALID,
  names
})

export const privateGet = (name: string, path: string, names: string, code = INVALID): Case => ({
  name: `${path.split("?")[0].split("/").pop()}: ${name}`,
  method: "GET",
  path,
  auth: "service",
  status: 400,
  code,
  names
})

export const privatePost = (action: string, name: string, body: unknown, names: string, code = INVALID): Case => ({
  name: `${action}: ${name}`,
  method: "POST",
  path: `/private/v1/${action}`,
  auth: "service",
  body,
  status: 400,
  code,
  names
})

// Session ------------------------------------------------------------------------------------

export const estimateFee = (name: string, query: string, names: string, code = INVALID): Case => ({
  name: `estimate_fee: ${name}`,
  method: "GET",
  path: `/core/v1/estimate_fee?${query}`,
  auth: "session",
  status: 400,
  code,
  names
})

export const sessionGet = (name: string, path: string, names: string, code = INVALID): Case => ({
  name: `${path.split("?")[0].split("/").pop()}: ${name}`,
  method: "GET",
  path,
  auth: "session",
  status: 400,
  code,
  names
})

export const sessionPost = (action: string, name: string, body: unknown, names: string): Case => ({
  name: `${action}: ${name}`,
  method: "POST",
  path: `/core/v1/wallet/${action}`,
  auth: "session",
  body,
  status: 400,
  code: INVALID,
  names
})

/** A GET on a feed, named after its action and query. */
export const feedGet =
  (auth: Auth) =>
  (path: string, names: string): Case => ({
    name: `${path.split("?")[0].split("/").pop()}: ${path.split("?")[1]}`,
    method: "GET",
    path,
    auth,
    status: 400,
    code: INVALID,
    names
  })

export const INT4_PAST = 2147483648
export const INT64_PAST = "9223372036854775808"

export const malformed = (path: string, auth: Auth, raw: string, label: string): Case => ({
  name: `${path.split("/").pop()}: ${label}`,
  method: "POST",
  path,
  auth,
  raw,
  status: 400,
  code: INVALID,
  names: "body"
})
