/**
 * vitest's global setup, after the build: the migrated template every new test database of this run copies
 * (test/support/Template.ts), made by the service's own migrators (sql/Migrator.ts, then effect/cluster's
 * storage migrations) on a fresh database, and removed when the run ends.
 */
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"
import { migrateClusterStorage } from "../../sql/ClusterMessageRepo.ts"
import { AppConfigService } from "../../src/platform/Config.ts"
import { MigratedDatabase } from "../../src/platform/db/Database.ts"
import { testConfig } from "./Actors.ts"
import { createDatabase, dropDatabase } from "./Postgres.ts"
import type { MigratedTemplate } from "./Template.ts"

/** Both migrators on a fresh database (a server URL, or an embedded DATA_DIR); the database closes after. */
const migrate = (databaseUrl: string | undefined, dataDir: string): Promise<void> =>
  Effect.runPromise(
    Effect.scoped(
      Layer.build(
        Layer.effectDiscard(Effect.orDie(migrateClusterStorage)).pipe(
          Layer.provide(MigratedDatabase),
          Layer.provide(Layer.succeed(AppConfigService)(testConfig(databaseUrl, dataDir)))
        )
      )
    )
  ).then(() => undefined)

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const serverUrl = (process.env.DATABASE_URL ?? "").length > 0 ? process.env.DATABASE_URL : undefined
  const dataDir = mkdtempSync(join(tmpdir(), "core-template-"))
  let template: MigratedTemplate
  let remove: () => Promise<void>
  if (serverUrl === undefined) {
    await migrate(undefined, dataDir)
    template = { dataDir }
    remove = async () => rmSync(dataDir, { recursive: true, force: true })
  } else {
    const databaseUrl = await createDatabase(serverUrl)
    await migrate(databaseUrl, dataDir)
    rmSync(dataDir, { recursive: true, force: true })
    template = { databaseUrl }
    remove = () => dropDatabase(databaseUrl)
  }
  project.provide("migratedTemplate", template)
  return remove
}
