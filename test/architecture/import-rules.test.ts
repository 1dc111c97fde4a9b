/**
 * The layout's import rules (README "Layout and import rules"), checked by reading every import of
 * every source file: each tier imports only the tiers below it, services reach actors only through
 * their Protocol files, and there are no import circles anywhere. Changes go through actors: outside
 * actors/, only the services on `ledgerCommitters` (each with its reason) import the ledger writer; system
 * wallet ids are SystemWallet's (sql/Ledger.ts), never a literal.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const root = resolve(import.meta.dirname, "../..")

/** The tier of a repository path (posix, relative to the root). */
export const tierOf = (path: string): string => {
  if (path.startsWith("schema/")) return "schema"
  if (path.startsWith("client/")) return "client"
  if (path.startsWith("cli/")) return "cli"
  if (path.startsWith("sql/")) return "sql"
  if (path.startsWith("src/platform/")) return "platform"
  if (path.startsWith("src/services/")) return "services"
  if (path.startsWith("src/http/")) return "http"
  if (path.startsWith("src/")) return "root"
  if (path.startsWith("actors/")) return "actors"
  if (path.startsWith("test/")) return "test"
  if (path.startsWith("bench/")) return "bench"
  if (path.startsWith("tools/")) return "tools"
  return "other"
}

const isProtocol = (path: string) => /^actors\/[a-z]+\/Protocol\.ts$/.test(path)
const actorKind = (path: string) => path.split("/")[1]

/** Why an import from `from` to `to` breaks a rule, or undefined when it is allowed. */
export const ruleBroken = (from: string, to: string): string | undefined => {
  const source = tierOf(from),
    target = tierOf(to)
  if (target === "test" && source !== "test") return "only tests import test/"
  if (target === "bench" && source !== "bench") return "nothing imports bench/"
  if (target === "tools" && source !== "tools") return "nothing imports tools/ (tests run them as processes)"
  switch (source) {
    case "schema":
      return target === "schema" ? undefined : "schema/ imports only schema/"
    case "client":
      return ["schema", "client"].includes(target) ? undefined : "client/ imports only schema/ and client/"
    case "cli":
      return ["schema", "client", "cli"].includes(target) ? undefined : "cli/ imports only schema/, client/ and cli/"
    case "tools":
      return ["schema", "client", "tools"].includes(target)
        ? undefined
        : "tools/ (the reference scanner and signer) talks to the service over HTTP: schema/, client/ and tools/ only"
    case "sql":
      return ["schema", "sql"].includes(target) ? undefined : "sql/ imports only schema/ and sql/"
    case "platform":
      return ["schema", "sql", "platform"].includes(target)
        ? undefined
        : "src/platform/ imports only schema/, sql/ and src/platform/"
    case "actors":
      if (["schema", "sql", "platform"].includes(target)) return undefined
      if (target === "actors" && (actorKind(from) === actorKind(to) || isProtocol(to))) return undefined
      return "an actor imports schema/, sql/, src/platform/, its own folder and other actors' Protocol.ts only"
    case "services":
      if (["schema", "sql", "platform", "services"].includes(target)) return undefined
      if (target === "actors" && isProtocol(to)) return undefined
      return "src/services/ reaches actors only through their Protocol.ts"
    case "http":
      return ["schema", "platform", "services", "http"].includes(target)
        ? undefined
        : "src/http/ imports schema/, src/platform/, src/services/ and src/http/ only (no SQL)"
    default:
      return undefined
  }
}

const ledgerWriter = "src/platform/LedgerWriter.ts"

/**
 * The services that hold the ledger writer themselves instead of sending a message to an actor, and why.
 * Everything else in src/services/ and src/http/ changes state through an actor's Protocol.ts.
 */
export const ledgerCommitters: Readonly<Record<string, string>> = {
  "src/services/crypto/Withdrawals.ts":
    "cancel of a Queued withdrawal: one conditional stage transition on a crypto_txs row no actor owns",
  "src/services/crypto/SignerQueue.ts":
    "hand-off and signer reports: conditional stage transitions on crypto_txs rows no actor owns",
  "src/services/payments/PaymentCrypto.ts":
    "confirm_crypto stores the payer's claimed txHash: a row only, no money and no order state",
  "src/services/federation/Settlement.ts":
    "the one conditional transition that settles a federation link exactly once (C18)",
  "src/services/federation/FederationOrders.ts":
    "a FederationCredit and its link in one commit, its reference unique: exactly once across processes",
  "src/services/federation/PartnerTransfers.ts":
    "releases a partner transfer the partner refused, through Settlement's conditional transition",
  "src/services/ledger/Feeds.ts": "subscribes to the writer's commit watermark for long polls; commits nothing"
}

const sourceFiles = (): Array<string> =>
  execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*.ts"], { cwd: root })
    .toString()
    .trim()
    .split("\n")
    .filter((f) => f.length > 0 && !f.startsWith("node_modules/"))

/** The project files a file imports (relative specifiers only; packages are not ours). */
const importsOf = (file: string): Array<string> => {
  const text = readFileSync(join(root, file), "utf8")
  const found: Array<string> = []
  for (const match of text.matchAll(
    /(?:^|\n)\s*(?:import|export)\b[^"'`]*?from\s*["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g
  )) {
    const spec = match[1] ?? match[2]
    found.push(
      relative(root, resolve(root, dirname(file), spec))
        .split("\\")
        .join("/")
    )
  }
  return found
}

/** Strongly connected components with more than one file (or a self-import): the import circles. */
const circlesOf = (graph: Map<string, Array<string>>): Array<Array<string>> => {
  let next = 0
  const index = new Map<string, number>(),
    low = new Map<string, number>(),
    stack: Array<string> = [],
    onStack = new Set<string>()
  const circles: Array<Array<string>> = []
  const visit = (node: string) => {
    index.set(node, next)
    low.set(node, next)
    next++
    stack.push(node)
    onStack.add(node)
    for (const to of graph.get(node) ?? []) {
      if (!graph.has(to)) continue
      if (!index.has(to)) {
        visit(to)
        low.set(node, Math.min(low.get(node)!, low.get(to)!))
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!))
    }
    if (low.get(node) === index.get(node)) {
      const component: Array<string> = []
      for (;;) {
        const n = stack.pop()!
        onStack.delete(n)
        component.push(n)
        if (n === node) break
      }
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) circles.push(component.sort())
    }
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return circles
}

describe("import rules", () => {
  const files = sourceFiles()
  const graph = new Map(files.map((f) => [f, importsOf(f)]))

  it("the rule table says what a newcomer would expect (one line per case)", () => {
    const cases: ReadonlyArray<readonly [string, string, boolean]> = [
      ["sql/LedgerCommit.ts", "sql/Ledger.ts", true],
      ["sql/LedgerCommit.ts", "src/platform/Config.ts", false],
      ["schema/Money.ts", "sql/Ledger.ts", false],
      ["src/platform/LedgerWriter.ts", "sql/LedgerCommit.ts", true],
      ["src/platform/LedgerWriter.ts", "actors/wallet/Protocol.ts", false],
      ["actors/code/Behaviour.ts", "actors/wallet/Protocol.ts", true],
      ["actors/code/Behaviour.ts", "actors/wallet/Engine.ts", false],
      ["actors/room/Engine.ts", "src/services/exchange/Rates.ts", false],
      ["src/services/codes/Codes.ts", "actors/code/Protocol.ts", true],
      ["src/services/codes/Codes.ts", "actors/code/Engine.ts", false],
      ["src/http/wallets/WalletHandlers.ts", "src/services/wallets/Wallets.ts", true],
      ["src/http/wallets/WalletHandlers.ts", "sql/WalletRepo.ts", false],
      ["src/Server.ts", "actors/wallet/Behaviour.ts", true],
      ["src/main.ts", "test/support/Service.ts", false],
      ["bench/run.ts", "test/support/Client.ts", false],
      ["tools/evm/scanner/main.ts", "tools/evm/shared/ServiceClient.ts", true],
      ["tools/evm/scanner/main.ts", "src/platform/Config.ts", false],
      ["tools/evm/signer/main.ts", "sql/SignerRepo.ts", false],
      ["tools/evm/signer/main.ts", "actors/chain/Protocol.ts", false],
      ["test/support/EvmTools.ts", "tools/evm/scanner/main.ts", false],
      ["test/unit/engine.test.ts", "actors/wallet/Engine.ts", true]
    ]
    for (const [from, to, allowed] of cases)
      assert.strictEqual(ruleBroken(from, to) === undefined, allowed, `${from} -> ${to}`)
  })

  it("every import in the repository keeps the rules", () => {
    const broken = [...graph].flatMap(([from, targets]) =>
      targets.flatMap((to) => {
        const why = ruleBroken(from, to)
        return why === undefined ? [] : [`${from} -> ${to}: ${why}`]
      })
    )
    assert.deepStrictEqual(broken, [])
  })

  it("outside actors/, only the listed services hold the ledger writer (each with its reason)", () => {
    const holders = [...graph]
      .filter(([from, targets]) => ["services", "http"].includes(tierOf(from)) && targets.includes(ledgerWriter))
      .map(([from]) => from)
      .sort()
    assert.deepStrictEqual(holders, Object.keys(ledgerCommitters).sort())
    for (const [file, reason] of Object.entries(ledgerCommitters)) assert.isAbove(reason.length, 20, file)
  })

  it("system wallet ids come from one table (SystemWallet in sql/Ledger.ts), never a literal", () => {
    const literal = /(?<![\w.])-(?:1|2|3|4|16)n\b/
    const sign = /\?\s*1n\s*:\s*-1n\b/ // a posting's sign, not a wallet
    const found = files
      .filter(
        (f) => ["sql", "platform", "actors", "services", "http", "root"].includes(tierOf(f)) && f !== "sql/Ledger.ts"
      )
      .flatMap((f) =>
        readFileSync(join(root, f), "utf8")
          .split("\n")
          .flatMap((line, i) => (literal.test(line.replace(sign, "")) ? [`${f}:${i + 1}: ${line.trim()}`] : []))
      )
    assert.deepStrictEqual(found, [])
  })

  it("there are no import circles", () => {
    assert.deepStrictEqual(circlesOf(graph), [])
  })
})
