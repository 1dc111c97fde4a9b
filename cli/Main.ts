/** `npx core-wallet …` / `npm run cli -- …`: the operator CLI (cli/Commands.ts; output and exit codes: cli/Output.ts). */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { Command } from "effect/cli"
import { commands } from "./Commands.ts"

commands.pipe(Command.run({ version: "0.1.0" }), Effect.provide(NodeServices.layer), NodeRuntime.runMain)
