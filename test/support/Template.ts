/**
 * The migrated template each test database starts from, made once per test run by vitest's global setup
 * (test/support/MigrateOnce.ts) with the service's own migrators. Embedded: a PGlite DATA_DIR that a new
 * temp DATA_DIR is copied from. Server: a database a new one is created from (`CREATE DATABASE … TEMPLATE`).
 * A service still runs its migrators at start, exactly as `npm start` does, and finds nothing to do. Empty
 * databases, migrated from scratch at start: `fromScratch` (foundation.test.ts's restart) and the restart
 * tests that make their own database (crypto-restart, exchange-restart, payments-webhooks-restart).
 */
import { cpSync } from "node:fs"
import { inject } from "vitest"
import { createDatabase } from "./Postgres.ts"

export interface MigratedTemplate {
  /** The template database on the server path. */
  readonly databaseUrl?: string
  /** The template DATA_DIR on the embedded path. */
  readonly dataDir?: string
}

declare module "vitest" {
  export interface ProvidedContext {
    readonly migratedTemplate: MigratedTemplate
  }
}

/** The run's template (undefined outside a vitest run). */
const template = (): MigratedTemplate | undefined => {
  try {
    return inject("migratedTemplate")
  } catch {
    return undefined
  }
}

/** A new test database on the server: a copy of the run's migrated template, or empty with `fromScratch`. */
export const newServerDatabase = (serverUrl: string, fromScratch = false): Promise<string> =>
  createDatabase(serverUrl, fromScratch ? undefined : template()?.databaseUrl)

/** Fills a new embedded DATA_DIR with the run's migrated template, or leaves it empty with `fromScratch`. */
export const fillDataDir = (dataDir: string, fromScratch = false): void => {
  const source = fromScratch ? undefined : template()?.dataDir
  if (source !== undefined) cpSync(source, dataDir, { recursive: true })
}
