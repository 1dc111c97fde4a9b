/** The package's typed client (`import { createClient } from "core-wallet"`): see client/CoreClient.ts. */
export { type ClientOptions, CoreClient, type CoreApi, untagEnvelope } from "./CoreClient.ts"
export { createClient, type PromiseApi } from "./PromiseClient.ts"
export { Api } from "../schema/Api.ts"
/** Branded ids (`WalletId.make("42")`) for calls whose fields are typed as ids. */
export * from "../schema/Ids.ts"
