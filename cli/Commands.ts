/**
 * The operator CLI's commands (issue #28 item 2), each one call of the typed client (client/) with a
 * service key: wallets, sessions, apps, funding, rates, tariffs, partners, terminals, the journal, the
 * ledger audit and a live feed. Inputs are decoded with the API's own schemas before anything is sent,
 * so a bad id or amount is refused here with the same rule the service would apply.
 */
import { Effect, Option, Schema } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { readFileSync } from "node:fs"
import { CoreClient } from "../client/CoreClient.ts"
import { AddPartnerIn } from "../schema/Federation.ts"
import { AppId, ClientId, TxId, WalletId } from "../schema/Ids.ts"
import { TerminalCreateIn, SetTariffsIn } from "../schema/Reference.ts"
import { PositiveAmount } from "../schema/Money.ts"
import { answer, refused } from "./Output.ts"

const url = Flag.String("url").pipe(
  Flag.withDescription("The service's base URL (default: $CORE_URL, else http://127.0.0.1:8080)"),
  Flag.optional
)
const key = Flag.String("key").pipe(
  Flag.withDescription("A service key with the scope the command needs (default: $CORE_SERVICE_KEY)"),
  Flag.optional
)
const json = Flag.Boolean("json").pipe(
  Flag.withDescription("One line of JSON per answer, for scripts"),
  Flag.withDefault(false)
)

export const root = Command.make("core-wallet").pipe(
  Command.withSharedFlags({ url, key, json }),
  Command.withDescription("Operate a core wallet service over its private API (/private/v1/)")
)

/** The root's flags, the client they name, and one call answered (cli/Output.ts). */
const run = <A extends { readonly result: unknown; readonly cursor?: unknown }, E>(
  call: (client: CoreClient["Service"]) => Effect.Effect<A, E, never>
) =>
  Effect.gen(function* () {
    const flags = yield* root
    const baseUrl = Option.getOrElse(flags.url, () => process.env.CORE_URL ?? "http://127.0.0.1:8080")
    const serviceKey = Option.getOrElse(flags.key, () => process.env.CORE_SERVICE_KEY ?? "")
    yield* answer(flags.json, CoreClient.use(call)).pipe(Effect.provide(CoreClient.layer({ baseUrl, serviceKey })))
  })

/** Decodes a command-line value with the API's schema; a refusal is printed like the service's. */
const decoded = <S extends Schema.Top>(schema: S, value: unknown) =>
  Schema.decodeUnknownEffect(schema as any)(value) as Effect.Effect<S["Type"], Schema.SchemaError>

const withInput = <I, A extends { readonly result: unknown; readonly cursor?: unknown }, E>(
  input: Effect.Effect<I, unknown>,
  call: (client: CoreClient["Service"], value: I) => Effect.Effect<A, E, never>
) =>
  Effect.gen(function* () {
    const flags = yield* root
    const value = yield* Effect.result(input)
    if (value._tag === "Failure") return yield* refused(flags.json, value.failure)
    yield* run((client) => call(client, value.success))
  })

const jsonFile = (path: string) =>
  Effect.try({ try: () => JSON.parse(readFileSync(path, "utf8")) as unknown, catch: (e) => new Error(`${path}: ${e}`) })

const walletIdArg = Argument.String("wallet-id").pipe(Argument.withDescription("The wallet's id"))

const createWallet = Command.make(
  "create-wallet",
  {
    clientId: Flag.String("client-id").pipe(Flag.withDescription("The user's client id (int64)")),
    name: Flag.String("name").pipe(Flag.withDescription("The wallet's name"), Flag.optional)
  },
  ({ clientId, name }) =>
    withInput(decoded(ClientId, clientId), (client, id) =>
      client.private.create_wallet({
        payload: { clientId: id, ...Option.match(name, { onNone: () => ({}), onSome: (n) => ({ name: n }) }) }
      })
    )
).pipe(Command.withDescription("Create a wallet for a client"))

const wallets = Command.make(
  "wallets",
  { clientId: Flag.String("client-id").pipe(Flag.withDescription("Only this client's wallets"), Flag.optional) },
  ({ clientId }) =>
    withInput(
      Option.match(clientId, { onNone: () => Effect.succeed(undefined), onSome: (id) => decoded(ClientId, id) }),
      (client, id) => client.private.get_wallets({ query: id === undefined ? {} : { client_id: id } })
    )
).pipe(Command.withDescription("List wallets (the first 100, or a client's)"))

const wallet = Command.make("wallet", { walletId: walletIdArg }, ({ walletId }) =>
  withInput(decoded(WalletId, walletId), (client, id) => client.private.wallet_info_get({ query: { wallet_id: id } }))
).pipe(Command.withDescription("Show one wallet"))

const fund = Command.make(
  "fund",
  {
    walletId: walletIdArg,
    currency: Argument.String("currency").pipe(Argument.withDescription("Currency code, e.g. USDT")),
    amount: Argument.String("amount").pipe(Argument.withDescription("Exact decimal amount")),
    debit: Flag.Boolean("debit").pipe(
      Flag.withDescription("Take the amount out instead of crediting it"),
      Flag.withDefault(false)
    ),
    externalId: Flag.String("external-id").pipe(
      Flag.withDescription("Idempotency key (a repeat answers the first result); default: a new one"),
      Flag.optional
    )
  },
  ({ walletId, currency, amount, debit, externalId }) =>
    withInput(Effect.all([decoded(WalletId, walletId), decoded(PositiveAmount, amount)]), (client, [id, exact]) =>
      client.private.execute_transactions({
        payload: [
          {
            externalId: Option.getOrElse(
              externalId,
              () => `cli-${Date.now()}-${Math.random().toString(36).slice(2, 10)}`
            ),
            walletId: id,
            currency,
            amount: exact,
            direction: debit ? "debit" : "credit"
          }
        ]
      })
    )
).pipe(Command.withDescription("Credit (or --debit) a wallet from the treasury: execute_transactions"))

const createSession = Command.make("create-session", { walletId: walletIdArg }, ({ walletId }) =>
  withInput(decoded(WalletId, walletId), (client, id) => client.private.create_session({ payload: { walletId: id } }))
).pipe(Command.withDescription("Open a session (sid) for a wallet"))

const createApp = Command.make(
  "create-app",
  { walletId: walletIdArg, name: Argument.String("name").pipe(Argument.withDescription("The app's name")) },
  ({ walletId, name }) =>
    withInput(decoded(WalletId, walletId), (client, id) =>
      client.private.create_app({ payload: { walletId: id, name } })
    )
).pipe(Command.withDescription("Create a merchant app on a wallet (answers appId, pkey, webhookSecret)"))

const appIdArg = Argument.String("app-id").pipe(Argument.withDescription("The app's id"))

const rotateAppKey = Command.make("rotate-app-key", { appId: appIdArg }, ({ appId }) =>
  withInput(decoded(AppId, appId), (client, id) => client.private.rotate_app_key({ payload: { appId: id } }))
).pipe(Command.withDescription("Give an app a new pkey (shown once); the old one is refused from then on (C19 §5)"))

const setAppEnabled = Command.make(
  "set-app-enabled",
  {
    appId: appIdArg,
    enabled: Argument.Literals("enabled", ["on", "off"]).pipe(Argument.withDescription("on or off"))
  },
  ({ appId, enabled }) =>
    withInput(decoded(AppId, appId), (client, id) =>
      client.private.set_app_enabled({ payload: { appId: id, enabled: enabled === "on" } })
    )
).pipe(Command.withDescription("Enable or disable a merchant app (a disabled app's key and orders: 10411)"))

const railTxs = Command.make(
  "rail-txs",
  {
    since: Flag.String("since").pipe(Flag.withDescription("After this journal cursor"), Flag.optional),
    limit: Flag.Int("limit").pipe(Flag.withDescription("At most this many (1-1000)"), Flag.withDefault(100))
  },
  ({ since, limit }) =>
    run((client) =>
      client.privateLedger.list_last_updated_txs({
        payload: {
          ...Option.match(since, { onNone: () => ({}), onSome: (c) => ({ since: c }) }),
          limit,
          scope: 2
        } as any
      })
    )
).pipe(Command.withDescription("Crypto-rail transactions (deposits, withdrawals, refunds) changed after a cursor"))

const releaseWithdrawal = Command.make(
  "release-withdrawal",
  { txId: Argument.String("tx-id").pipe(Argument.withDescription("The withdrawal's txId")) },
  ({ txId }) =>
    withInput(decoded(TxId, txId), (client, id) => client.signer.release_withdrawal({ payload: { txId: id } }))
).pipe(
  Command.withDescription(
    "Admin: end a Broadcast withdrawal whose txHash is in no pushed block, returning its money (C19 §9)"
  )
)

const setRate = Command.make(
  "set-rate",
  {
    from: Argument.String("from"),
    to: Argument.String("to"),
    rate: Argument.String("rate").pipe(Argument.withDescription("Units of `to` per unit of `from`"))
  },
  ({ from, to, rate }) => run((client) => client.private.set_rates({ payload: [{ from, to, rate }] as any }))
).pipe(Command.withDescription("Set one exchange rate"))

const rates = Command.make("rates", {}, () => run((client) => client.private.get_rates())).pipe(
  Command.withDescription("List the exchange rates")
)

const tariffs = Command.make("tariffs", {}, () => run((client) => client.private.get_tariffs())).pipe(
  Command.withDescription("Show the tariff rules")
)

const fileArg = Argument.String("file").pipe(Argument.withDescription("A JSON file holding the request body"))

const setTariffs = Command.make("set-tariffs", { file: fileArg }, ({ file }) =>
  withInput(
    Effect.flatMap(jsonFile(file), (body) => decoded(SetTariffsIn, body)),
    (client, rules) => client.private.set_tariffs({ payload: rules })
  )
).pipe(Command.withDescription("Replace the tariff rules with a file's (set_tariffs)"))

const addPartner = Command.make("add-partner", { file: fileArg }, ({ file }) =>
  withInput(
    Effect.flatMap(jsonFile(file), (body) => decoded(AddPartnerIn, body)),
    (client, partner) => client.privateFederation.add_federation_partner({ payload: partner })
  )
).pipe(Command.withDescription("Record a federation partner from a file (add_federation_partner, C18)"))

const partners = Command.make("partners", {}, () =>
  run((client) => client.federationWallet.get_federation_partners())
).pipe(Command.withDescription("List the federation partners"))

const addTerminal = Command.make("add-terminal", { file: fileArg }, ({ file }) =>
  withInput(
    Effect.flatMap(jsonFile(file), (body) => decoded(TerminalCreateIn, body)),
    (client, terminal) => client.private.add_network({ payload: terminal })
  )
).pipe(Command.withDescription("Add a payment terminal / network from a file (add_network)"))

const cursorFlag = Flag.String("cursor").pipe(Flag.withDescription("Start after this cursor"), Flag.optional)

const journal = Command.make(
  "journal",
  {
    cursor: cursorFlag,
    limit: Flag.Int("limit").pipe(Flag.withDescription("At most this many (1-1000)"), Flag.withDefault(100))
  },
  ({ cursor, limit }) =>
    run((client) =>
      client.privateLedger.events({
        query: { ...Option.match(cursor, { onNone: () => ({}), onSome: (c) => ({ cursor: c }) }), limit } as any
      })
    )
).pipe(Command.withDescription("Read the journal's events after a cursor"))

const audit = Command.make("audit", {}, () => run((client) => client.private.ledger_audit())).pipe(
  Command.withDescription("The ledger audit: every currency sums to 0, no user bucket below 0")
)

const follow = Command.make("follow", { cursor: cursorFlag }, ({ cursor }) =>
  Effect.gen(function* () {
    let at = Option.getOrUndefined(cursor)
    for (;;) {
      yield* run((client) =>
        Effect.gen(function* () {
          const page = yield* client.privateLedger.events({ query: (at === undefined ? {} : { cursor: at }) as any })
          at = page.cursor
          if (page.result.length === 0)
            yield* client.privateLedger.wait_cursor({ query: { cursor: at, timeout: 30 } as any })
          return page
        })
      )
      if (process.exitCode !== undefined && process.exitCode !== 0) return
    }
  })
).pipe(Command.withDescription("Follow the journal live (long-polls wait_cursor; Ctrl-C stops)"))

export const commands = root.pipe(
  Command.withSubcommands([
    createWallet,
    wallets,
    wallet,
    fund,
    createSession,
    createApp,
    rotateAppKey,
    setAppEnabled,
    setRate,
    rates,
    tariffs,
    setTariffs,
    addPartner,
    partners,
    addTerminal,
    journal,
    audit,
    follow,
    railTxs,
    releaseWithdrawal
  ])
)
