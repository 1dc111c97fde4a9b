/** The general areas: public info, the session-less general area, the operator's private area. */
import { Layer } from "effect"
import { PublicHandlers } from "./PublicHandlers.ts"
import { GeneralHandlers } from "./GeneralHandlers.ts"
import { PrivateHandlers } from "./PrivateHandlers.ts"

export const GeneralRoutes = Layer.mergeAll(PublicHandlers, GeneralHandlers, PrivateHandlers)
