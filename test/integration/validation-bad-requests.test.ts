/**
 * Bad input everywhere gets a clear 400 envelope naming the field (CONTRACT C4, C5): wrong types,
 * missing fields, negative, zero, NaN and huge amounts, more decimals than the currency has,
 * unknown currencies, overlong strings, malformed JSON, ids that are not int64, and feed filters out
 * of range (cursors, ticks, limits, network types, terminal ids, room keys). The checks are
 * a table, one line per bad request: the route, what is sent, the expected status and error code,
 * and a piece of text the message must contain to name the offending field. Each request goes over
 * real HTTP to the real service, with a valid credential, so only the input is at fault. Then
 * execute_transactions judges each row, and nothing rejected was acted on.
 */
import { assert, describe, it } from "@effect/vitest"
import { isEnvelope, type Reply } from "../support/Client.ts"
import { assertRejected } from "../support/Fixtures.ts"
import {
  type Auth,
  type Case,
  createWallet,
  estimateFee,
  execute,
  feedGet,
  FIELD_RULE,
  INT4_PAST,
  INT64_PAST,
  INVALID,
  long,
  malformed,
  posting,
  privateGet,
  privatePost,
  rawAmount,
  sessionGet,
  sessionPost,
  TOO_MANY_DECIMALS,
  UNKNOWN_CURRENCY,
  UNSUPPORTED_MEDIA_TYPE,
  updateWallet,
  validationFile,
  withoutField
} from "../support/Validation.ts"

const cases: ReadonlyArray<Case> = [
  // create_wallet: ids that are not int64, missing and overlong fields, ranges, formats.
  createWallet("clientId missing", {}, "body.clientId"),
  createWallet("clientId not a number", { clientId: "abc" }, "body.clientId"),
  createWallet("clientId a fraction", { clientId: 1.5 }, "body.clientId"),
  createWallet("clientId above int64 as a string", { clientId: "99999999999999999999" }, "body.clientId"),
  createWallet("clientId int64 max + 1", { clientId: "9223372036854775808" }, "body.clientId"),
  createWallet(
    "clientId above int64 as a JSON number",
    undefined,
    "body.clientId",
    `{"clientId":99999999999999999999}`
  ),
  createWallet("clientId a boolean", { clientId: true }, "body.clientId"),
  createWallet("clientId null", { clientId: null }, "body.clientId"),
  createWallet("clientId with a sign and spaces", { clientId: " +12" }, "body.clientId"),
  createWallet("name of 101 characters", { clientId: "1", name: long(101) }, "body.name"),
  createWallet("name a number", { clientId: "1", name: 5 }, "body.name"),
  createWallet("walletGroup 64", { clientId: "1", walletGroup: 64 }, "body.walletGroup"),
  createWallet("walletGroup -1", { clientId: "1", walletGroup: -1 }, "body.walletGroup"),
  createWallet("walletGroup a string", { clientId: "1", walletGroup: "1" }, "body.walletGroup"),
  createWallet("project a fraction", { clientId: "1", project: 0.5 }, "body.project"),
  createWallet("phone without +", { clientId: "1", phone: "491701234567" }, "body.phone"),
  createWallet("messengerId without @", { clientId: "1", messengerId: "someone" }, "body.messengerId"),
  createWallet("crmId of 65 characters", { clientId: "1", crmId: long(65) }, "body.crmId"),
  createWallet("a JSON array where an object is expected", [{ clientId: "1" }], "body"),
  createWallet("a JSON string where an object is expected", "1", "body"),

  // execute_transactions: amounts, currencies, enums, strings, batch sizes.
  execute("amount -1", [posting({ amount: "-1" })], "body[0].amount"),
  execute("amount -1 as a JSON number", [posting({ amount: -1 })], "body[0].amount"),
  execute("amount 0", [posting({ amount: "0" })], "body[0].amount"),
  execute("amount 0.000", [posting({ amount: "0.000" })], "body[0].amount"),
  execute("amount 0 as a JSON number", [posting({ amount: 0 })], "body[0].amount"),
  execute("amount NaN", [posting({ amount: "NaN" })], "body[0].amount"),
  execute("amount Infinity", [posting({ amount: "Infinity" })], "body[0].amount"),
  execute("amount 1e400 as a string", [posting({ amount: "1e400" })], "body[0].amount"),
  execute("amount 1e400 as a JSON number", undefined, "body[0].amount", rawAmount("1e400")),
  execute("amount 1e3 (exponent)", [posting({ amount: "1e3" })], "body[0].amount"),
  execute("amount of 25 integer digits", [posting({ amount: "1".repeat(25) })], "body[0].amount"),
  execute("amount of 19 fraction digits", [posting({ amount: "0." + "1".repeat(19) })], "body[0].amount"),
  execute("amount a JSON number past float precision", undefined, "body[0].amount", rawAmount("12345678901234567891")),
  execute("amount with a comma", [posting({ amount: "1,5" })], "body[0].amount"),
  execute("amount empty", [posting({ amount: "" })], "body[0].amount"),
  execute("amount a boolean", [posting({ amount: true })], "body[0].amount"),
  execute("amount missing", [withoutField("amount")], "body[0].amount"),
  execute("currency not a currency code", [posting({ currency: "usdt" })], "body[0].currency"),
  execute("currency missing", [withoutField("currency")], "body[0].currency"),
  execute("direction sideways", [posting({ direction: "sideways" })], "body[0].direction"),
  execute("externalId empty", [posting({ externalId: "" })], "body[0].externalId"),
  execute("externalId of 101 characters", [posting({ externalId: long(101) })], "body[0].externalId"),
  execute("tag of 101 characters", [posting({ tag: long(101) })], "body[0].tag"),
  execute("walletId not an int64", [posting({ walletId: "abc" })], "body[0].walletId"),
  execute("walletId a fraction", [posting({ walletId: 1.5 })], "body[0].walletId"),
  execute(
    "the second item is bad",
    [posting({}), posting({ externalId: "validation-2", amount: "-1" })],
    "body[1].amount"
  ),
  execute("an empty array", [], "body"),
  execute(
    "1001 items",
    Array.from({ length: 1001 }, (_, i) => posting({ externalId: `bulk-${i}` })),
    "body"
  ),
  execute("an object where an array is expected", posting({}), "body"),

  // update_wallet: ranges and ids.
  updateWallet("wallet_group 64", { id: "$wallet", wallet_group: 64 }, "body.wallet_group"),
  updateWallet("flags 32", { id: "$wallet", flags: 32 }, "body.flags"),
  updateWallet("flags -1", { id: "$wallet", flags: -1 }, "body.flags"),
  updateWallet("id not an int64", { id: "x" }, "body.id"),
  updateWallet("id missing", { name: "n" }, "body.id"),
  updateWallet("name of 101 characters", { id: "$wallet", name: long(101) }, "body.name"),
  updateWallet("sort_order a string", { id: "$wallet", sort_order: "1" }, "body.sort_order"),

  // Private queries: ids that are not int64, ranges, currency codes.
  privateGet("wallet_id not a number", "/private/v1/wallet_info_get?wallet_id=abc", "query.wallet_id"),
  privateGet("wallet_id missing", "/private/v1/wallet_info_get", "query.wallet_id"),
  privateGet("wallet_id int64 max + 1", "/private/v1/wallet_info_get?wallet_id=9223372036854775808", "query.wallet_id"),
  privateGet("wallet_id a fraction", "/private/v1/wallet_info_get?wallet_id=1.5", "query.wallet_id"),
  privateGet("limit 0", "/private/v1/get_wallets?limit=0", "query.limit"),
  privateGet("limit 1001", "/private/v1/get_wallets?limit=1001", "query.limit"),
  privateGet("limit not a number", "/private/v1/get_wallets?limit=abc", "query.limit"),
  privateGet("client_id not an int64", "/private/v1/get_wallets?client_id=x", "query.client_id"),
  privateGet("from not a currency code", "/private/v1/get_rate?from=btc&to=USDT", "query.from"),
  privateGet("to missing", "/private/v1/get_rate?from=BTC", "query.to"),
  privateGet("unknown currency", "/private/v1/get_rate?from=XXX&to=USDT", "from", UNKNOWN_CURRENCY),

  // Sessions and apps.
  privatePost("create_session", "ttlSeconds 5", { walletId: "$wallet", ttlSeconds: 5 }, "body.ttlSeconds"),
  privatePost(
    "create_session",
    "ttlSeconds of 31 days",
    { walletId: "$wallet", ttlSeconds: 31 * 86400 },
    "body.ttlSeconds"
  ),
  privatePost("create_session", "ttlSeconds a string", { walletId: "$wallet", ttlSeconds: "100" }, "body.ttlSeconds"),
  privatePost("create_session", "walletId not an int64", { walletId: "x" }, "body.walletId"),
  privatePost("create_session", "walletId missing", {}, "body.walletId"),
  privatePost("end_session", "sid of 201 characters", { sid: long(201) }, "body.sid"),
  privatePost("create_app", "name empty", { walletId: "$wallet", name: "" }, "body.name"),
  privatePost("create_app", "name of 101 characters", { walletId: "$wallet", name: long(101) }, "body.name"),

  // set_rates: rates, currencies, the pair.
  privatePost("set_rates", "rate -1", [{ from: "BTC", to: "USDT", rate: "-1" }], "body[0].rate"),
  privatePost("set_rates", "rate 0", [{ from: "BTC", to: "USDT", rate: "0" }], "body[0].rate"),
  privatePost("set_rates", "rate not a number", [{ from: "BTC", to: "USDT", rate: "abc" }], "body[0].rate"),
  privatePost("set_rates", "from not a currency code", [{ from: "btc", to: "USDT", rate: "1" }], "body[0].from"),
  privatePost("set_rates", "from equals to", [{ from: "BTC", to: "BTC", rate: "1" }], "from and to", FIELD_RULE),
  privatePost("set_rates", "unknown currency", [{ from: "XXX", to: "USDT", rate: "1" }], "[0].from", UNKNOWN_CURRENCY),
  privatePost("set_rates", "an empty array", [], "body"),
  privatePost("set_rates", "an object where an array is expected", { from: "BTC", to: "USDT", rate: "1" }, "body"),

  // estimate_fee (session): query amounts are text and stay exact.
  estimateFee("amount missing", "tx_type=InnerTransfer&currency=USDT", "query.amount"),
  estimateFee("amount -1", "tx_type=InnerTransfer&currency=USDT&amount=-1", "query.amount"),
  estimateFee("amount 0", "tx_type=InnerTransfer&currency=USDT&amount=0", "query.amount"),
  estimateFee("amount NaN", "tx_type=InnerTransfer&currency=USDT&amount=NaN", "query.amount"),
  estimateFee("amount 1e400", "tx_type=InnerTransfer&currency=USDT&amount=1e400", "query.amount"),
  estimateFee("amount given twice", "tx_type=InnerTransfer&currency=USDT&amount=1&amount=2", "query.amount"),
  estimateFee(
    "amount with 7 decimals for USDT (6)",
    "tx_type=InnerTransfer&currency=USDT&amount=1.1234567",
    "amount",
    TOO_MANY_DECIMALS
  ),
  // As a float this is 1 exactly; as the text it is, it has 17 decimals.
  estimateFee(
    "amount 1.00000000000000001 for USDT",
    "tx_type=InnerTransfer&currency=USDT&amount=1.00000000000000001",
    "amount",
    TOO_MANY_DECIMALS
  ),
  estimateFee(
    "amount with 3 decimals for EUR (2)",
    "tx_type=InnerTransfer&currency=EUR&amount=0.001",
    "amount",
    TOO_MANY_DECIMALS
  ),
  estimateFee("tx_type Bogus", "tx_type=Bogus&currency=USDT&amount=1", "tx_type"),
  estimateFee("tx_type missing", "currency=USDT&amount=1", "query.tx_type"),
  estimateFee("tx_type of 33 characters", `tx_type=${long(33)}&currency=USDT&amount=1`, "query.tx_type"),
  estimateFee("currency XXX", "tx_type=InnerTransfer&currency=XXX&amount=1", "currency", UNKNOWN_CURRENCY),
  estimateFee("currency not a currency code", "tx_type=InnerTransfer&currency=usdt&amount=1", "query.currency"),
  estimateFee(
    "recipient of 101 characters",
    `tx_type=InnerTransfer&currency=USDT&amount=1&recipient=${long(101)}`,
    "query.recipient"
  ),

  // Other session queries.
  sessionGet(
    "investment_id not an int64",
    "/core/v1/invest/get_investment_info?investment_id=abc",
    "query.investment_id"
  ),
  sessionGet(
    "investment_id int64 max + 1",
    "/core/v1/invest/get_investment_info?investment_id=9223372036854775808",
    "query.investment_id"
  ),
  sessionGet("investment_id missing", "/core/v1/invest/get_investment_info", "query.investment_id"),
  sessionGet("start not a date", "/core/v1/invest/get_investments?start=2020-13", "query.start"),
  sessionGet(
    "investment_types unknown",
    "/core/v1/invest/get_investments?investment_types=bogus",
    "query.investment_types"
  ),
  sessionGet("to not a currency code", "/core/v1/market/get_rates?to=eu", "query.to"),
  sessionGet("to unknown", "/core/v1/market/get_rates?to=XXX", "to", UNKNOWN_CURRENCY),
  sessionGet("from unknown", "/core/v1/market/get_rates?from=BTC&from=XXX", "from", UNKNOWN_CURRENCY),

  // Session bodies.
  sessionPost("update_settings", "name of 101 characters", { name: long(101) }, "body.name"),
  sessionPost("update_settings", "sortOrder -1", { sortOrder: -1 }, "body.sortOrder"),
  sessionPost("update_settings", "isDefault a string", { isDefault: "yes" }, "body.isDefault"),
  sessionPost("update_settings", "a JSON array where an object is expected", [], "body"),
  sessionPost("set_security", "require2FA a string", { require2FA: "yes" }, "body.require2FA"),
  sessionPost("set_security", "require2FA missing", {}, "body.require2FA"),

  // Merchant queries.
  {
    name: "get_app_payments: cursor not an int64",
    method: "GET",
    path: "/payorders/v1/get_app_payments?app_id=$app&cursor=abc",
    auth: "merchant",
    status: 400,
    code: INVALID,
    names: "query.cursor"
  },

  // Feeds and long-polls: every numeric filter is range-checked before it can reach SQL (an int4 or
  // int8 overflow there used to answer 500).
  ...(
    [
      ["networks past int4 (was a 500)", { networks: [-4117905104961535] }, "body.networks[0]"],
      ["networks 2^31", { networks: [INT4_PAST] }, "body.networks[0]"],
      ["networks 0", { networks: [0] }, "body.networks[0]"],
      ["networks 241", { networks: [1, 241] }, "body.networks[1]"],
      ["networks a fraction", { networks: [1.5] }, "body.networks[0]"],
      ["65 networks", { networks: Array.from({ length: 65 }, () => 1) }, "body.networks"],
      ["tokenNetworks -5", { tokenNetworks: ["-5"] }, "body.tokenNetworks[0]"],
      ["tokenNetworks 0", { tokenNetworks: [0] }, "body.tokenNetworks[0]"],
      ["tokenNetworks past int64", { tokenNetworks: [INT64_PAST] }, "body.tokenNetworks[0]"],
      ["since -1", { since: "-1" }, "body.since"],
      ["since past int64", { since: INT64_PAST }, "body.since"],
      ["since a fraction", { since: 1.5 }, "body.since"],
      ["limit 1e300", { limit: 1e300 }, "body.limit"],
      ["limit a string", { limit: "5" }, "body.limit"],
      ["intern -3", { intern: "-3" }, "body.intern"],
      ["intern past int64", { intern: INT64_PAST }, "body.intern"],
      ["scope 3", { scope: 3 }, "body.scope"]
    ] as const
  ).map(([name, body, names]) => privatePost("list_last_updated_txs", name, body, names)),
  ...(
    [
      ["/private/v1/wait_cursor?cursor=-1&timeout=0", "query.cursor"],
      [`/private/v1/wait_cursor?cursor=${INT64_PAST}&timeout=0`, "query.cursor"],
      ["/private/v1/wait_cursor?timeout=-1", "query.timeout"],
      ["/private/v1/wait_cursor?timeout=3601", "query.timeout"],
      ["/private/v1/events?cursor=-1", "query.cursor"],
      [`/private/v1/events?cursor=${INT64_PAST}`, "query.cursor"],
      ["/private/v1/events?limit=0", "query.limit"],
      ["/private/v1/events?limit=1001", "query.limit"],
      ["/private/v1/events?limit=99999999999999999999", "query.limit"]
    ] as const
  ).map(([path, names]) => feedGet("service")(path, names)),
  ...(
    [
      ["/core/v1/wallet/get_history_transactions?startTick=-1", "query.startTick"],
      [`/core/v1/wallet/get_history_transactions?endTick=${INT64_PAST}`, "query.endTick"],
      ["/core/v1/wallet/get_history_transactions?limit=-1", "query.limit"],
      ["/core/v1/wallet/get_history_transactions?limit=1001", "query.limit"],
      [`/core/v1/wallet/get_history_transactions?typeTx=${INT4_PAST}`, "query.typeTx"],
      ["/core/v1/wallet/get_profit_transactions?startTick=-1", "query.startTick"],
      ["/core/v1/wallet/get_profit_transactions?limit=0", "query.limit"],
      [`/core/v1/market/get_orders?room_key=${INT64_PAST}`, "query.room_key"],
      ["/core/v1/market/get_orders?room_key=99999999999999999999", "query.room_key"],
      ["/core/v1/market/get_orders?from_order_id=-1", "query.from_order_id"],
      [`/core/v1/market/get_orders?from_order_id=${INT64_PAST}`, "query.from_order_id"],
      ["/core/v1/market/get_orders?limit=0", "query.limit"],
      ["/core/v1/market/get_orders?limit=101", "query.limit"],
      [`/core/v1/get_candles?currency_from=BTC&currency_to=USDT&room_key=${INT64_PAST}`, "query.room_key"],
      [`/core/v1/market/get_trade_info?currency_from=BTC&currency_to=USDT&room_key=${INT64_PAST}`, "query.room_key"],
      ["/core/v1/market/get_trade_info?currency_from=BTC&currency_to=USDT&results_limit=0", "query.results_limit"]
    ] as const
  ).map(([path, names]) => feedGet("session")(path, names)),
  feedGet("merchant")("/payorders/v1/get_app_payments?app_id=$app&cursor=-1", "query.cursor"),

  // Malformed JSON, empty bodies and a wrong content type, across areas.
  ...(
    [
      ["/private/v1/create_wallet", "service"],
      ["/private/v1/update_wallet", "service"],
      ["/private/v1/create_session", "service"],
      ["/private/v1/execute_transactions", "service"],
      ["/private/v1/set_rates", "service"],
      ["/core/v1/wallet/update_settings", "session"],
      ["/core/v1/wallet/set_security", "session"]
    ] as const
  ).flatMap(([path, auth]) => [
    malformed(path, auth, "{oops", "malformed JSON"),
    malformed(path, auth, `[{"clientId": "1"`, "truncated JSON"),
    malformed(path, auth, "", "an empty body")
  ]),
  {
    name: "create_wallet: a text/plain body",
    method: "POST",
    path: "/private/v1/create_wallet",
    auth: "service",
    raw: `{"clientId":"1"}`,
    contentType: "text/plain",
    status: 415,
    // C19 §3: a body that is not application/json is 415 10407 (was 10001).
    code: UNSUPPORTED_MEDIA_TYPE,
    names: "Content-Type"
  }
]

/** Rows of execute_transactions are judged one by one (CONTRACT C3): the reply is 200, the row carries its error. */
interface ItemCase {
  readonly name: string
  readonly item: Record<string, unknown>
  readonly code: number
  readonly names: string
}

const itemCases: ReadonlyArray<ItemCase> = [
  {
    name: "amount with 7 decimals for USDT (6)",
    item: posting({ externalId: "item-decimals", amount: "1.1234567" }),
    code: TOO_MANY_DECIMALS,
    names: "amount"
  },
  {
    name: "amount with 3 decimals for EUR (2)",
    item: posting({ externalId: "item-eur", currency: "EUR", amount: "0.001" }),
    code: TOO_MANY_DECIMALS,
    names: "amount"
  },
  {
    name: "unknown currency XXX",
    item: posting({ externalId: "item-currency", currency: "XXX" }),
    code: UNKNOWN_CURRENCY,
    names: "currency"
  },
  {
    name: "a wallet that does not exist",
    item: posting({ externalId: "item-wallet", walletId: "987654321" }),
    code: 10030,
    names: "walletId"
  }
]

let wallet: string
let sid: string
let app: { appId: string; pkey: string }

const { service, client } = validationFile((made) => ({ wallet, sid, app } = made))

const fill = (text: string) => text.replaceAll("$wallet", wallet).replaceAll("$app", app.appId)

const credentialOf = (auth: Auth) =>
  auth === "service" ? { bearer: service().key } : auth === "session" ? { sid } : { pkey: app.pkey }

const send = async (c: Case): Promise<Reply> => {
  const raw = c.raw !== undefined ? fill(c.raw) : c.body !== undefined ? fill(JSON.stringify(c.body)) : undefined
  if (c.contentType !== undefined) {
    const response = await fetch(service().base + fill(c.path), {
      method: c.method,
      headers: { authorization: `Bearer ${service().key}`, "content-type": c.contentType },
      body: raw
    })
    return { status: response.status, body: (await response.json()) as Reply["body"], headers: response.headers }
  }
  return client.call(c.method, fill(c.path), { ...credentialOf(c.auth), ...(raw !== undefined ? { raw } : {}) })
}

describe("a bad request is a 400 envelope naming the field", () => {
  it.each(cases)("$name", async (c) => {
    const reply = await send(c)
    const seen = JSON.stringify(reply.body).slice(0, 300)
    assert.isTrue(isEnvelope(reply.body), seen)
    assertRejected(reply, c.status, c.code, seen)
    assert.include(reply.body.error?.message ?? "", c.names, seen)
    // The message is for people: one line, no internals.
    assert.notMatch(reply.body.error!.message, /\n|SELECT|INSERT|stack|at .*\.ts:/)
    assert.strictEqual(reply.headers.get("x-request-id"), String(reply.body.id))
  })
})

describe("execute_transactions judges each row (CONTRACT C3)", () => {
  it.each(itemCases)("$name: 200 with the row's own error", async (c) => {
    const reply = await client.priv("POST", "execute_transactions", JSON.parse(fill(JSON.stringify([c.item]))))
    const seen = JSON.stringify(reply.body).slice(0, 300)
    assert.strictEqual(reply.status, 200, seen)
    assert.isNull(reply.body.error, seen)
    const [row] = reply.body.result as Array<any>
    assert.isNull(row.txId, seen)
    assert.strictEqual(row.error?.code, c.code, seen)
    assert.include(row.error?.message ?? "", c.names, seen)
  })

  it("a bad row next to a good one: the good one is posted, the bad one is not", async () => {
    const reply = await client.priv("POST", "execute_transactions", [
      posting({ externalId: "mixed-good", walletId: wallet, amount: "2" }),
      posting({ externalId: "mixed-bad", walletId: wallet, amount: "0.0000001" })
    ])
    assert.strictEqual(reply.status, 200)
    const [good, bad] = reply.body.result as Array<any>
    assert.isNotNull(good.txId)
    assert.isNull(good.error)
    assert.strictEqual(bad.error?.code, TOO_MANY_DECIMALS)
    assert.strictEqual((await client.balance(sid, "USDT")).freeBalance, 2)
  })
})

describe("nothing rejected was acted on", () => {
  it("no bad request moved money or created a wallet", async () => {
    // The file's only credit is the 2 USDT of the mixed batch above.
    assert.strictEqual((await client.balance(sid, "USDT")).freeBalance, 2)
    const wallets = await client.priv("GET", "get_wallets?limit=1000")
    assert.strictEqual(wallets.status, 200)
    assert.deepStrictEqual(
      (wallets.body.result as Array<any>).map((w) => w.id),
      [wallet]
    )
  })

  it("valid ids beyond 2^53 survive a query string intact", async () => {
    // A timetick-sized id is a valid int64 even where a float would round it.
    const reply = await client.call("GET", "/core/v1/invest/get_investment_info?investment_id=1838415606846308417", {
      sid
    })
    assert.strictEqual(reply.status, 404)
    assert.include(reply.body.error?.message ?? "", "1838415606846308417")
  })
})
