#!/usr/bin/env node
// `npx core-wallet …` / `npm run cli -- …`: the operator CLI, compiled like the service (scripts/build.mjs).
import { ensureBuilt } from "./build.mjs"

ensureBuilt()
await import("../dist/cli/Main.js")
