/** Transfer codes, invoices and escrow. */
import { Codes } from "./Codes.ts"

export const CodesFeature = Codes.layer
