/**
 * The migration splitter (sql/Migrator.ts): statements end with a semicolon at the end of a line,
 * except inside a `$$`-quoted function body, which stays one statement; comment-only parts go.
 */
import { assert, describe, it } from "@effect/vitest"
import { migrationFiles, statementsOf } from "../../sql/Migrator.ts"

describe("statementsOf", () => {
  it("splits at line-ending semicolons, keeps $$ bodies whole, drops comment-only parts", () => {
    const text = [
      "-- a comment only;",
      "CREATE TABLE a (x int);",
      "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$",
      "BEGIN",
      "  PERFORM 1;",
      "  RETURN 2;",
      "END",
      "$$;",
      "-- leading comment",
      "CREATE TRIGGER t AFTER UPDATE ON a FOR EACH STATEMENT EXECUTE FUNCTION f();",
      ""
    ].join("\n")
    assert.deepStrictEqual(statementsOf(text), [
      "CREATE TABLE a (x int)",
      "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$\nBEGIN\n  PERFORM 1;\n  RETURN 2;\nEND\n$$",
      "-- leading comment\nCREATE TRIGGER t AFTER UPDATE ON a FOR EACH STATEMENT EXECUTE FUNCTION f()"
    ])
  })

  it("every migration file splits into statements with balanced $$ quotes and no empty statement", () => {
    const files = migrationFiles()
    assert.isAtLeast(files.length, 10)
    for (const file of files) {
      for (const statement of file.statements) {
        assert.strictEqual((statement.match(/\$\$/g)?.length ?? 0) % 2, 0, `${file.name}: ${statement.slice(0, 60)}`)
        assert.notMatch(statement, /;\s*$/, `${file.name}: a statement keeps its terminator`)
      }
    }
    const functions = files.flatMap((f) => f.statements).filter((s) => /^(--.*\n)*CREATE FUNCTION/m.test(s))
    const names = functions.map((s) => /CREATE FUNCTION (\w+)/.exec(s)![1]).sort()
    assert.deepStrictEqual(
      names,
      [
        "ledger_commit",
        "ledger_commit",
        "ledger_raise_stale",
        "ledger_rows_acquiring_session_decide",
        "ledger_rows_acquiring_session_insert",
        "ledger_rows_chain_head",
        "ledger_rows_chain_item",
        "ledger_rows_code_bind",
        "ledger_rows_code_insert",
        "ledger_rows_crypto_tx_insert",
        "ledger_rows_crypto_tx_update",
        "ledger_rows_federation_link_insert",
        "ledger_rows_investment_insert",
        "ledger_rows_investment_update",
        "ledger_rows_order_insert",
        "ledger_rows_order_insert",
        "ledger_rows_order_update",
        "ledger_rows_payment_order_address_claim",
        "ledger_rows_payment_order_address_detach",
        "ledger_rows_payment_order_income",
        "ledger_rows_payment_order_insert",
        "ledger_rows_payment_order_preset",
        "ledger_rows_payment_order_update",
        "ledger_rows_payment_refund_insert",
        "ledger_rows_payment_refund_settle",
        "ledger_rows_payment_trace",
        "ledger_rows_payout_withdrawal",
        "ledger_rows_refund_withdrawal",
        "ledger_rows_trade_insert",
        "ledger_rows_trade_insert",
        "notify_change",
        // Merchant webhooks (0026): the outbox triggers' functions (docs/WEBHOOKS.md).
        "webhook_order_event",
        "webhook_order_event_insert",
        "webhook_refund_event"
      ],
      "each function is one statement"
    )
  })
})
