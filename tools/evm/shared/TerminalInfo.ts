/**
 * What a scanner or signer needs of its terminal: its coin or token contract and decimals, its hot
 * address and the service's tip. C19 §10's `scanner_terminal` answers all of it to a `scanner` or
 * `signer` key; a service without that action (C15 alone) is served from the tool's own settings
 * (the contract, the decimals) and the tip is found by pushing (see scanner/Resume.ts).
 */
import { ServiceRefusal, type ServiceClient } from "./ServiceClient.ts"

export interface TerminalInfo {
  readonly tokenNetwork: string
  /** null: the network's coin (Base terminal); else the ERC-20/BEP-20 contract. */
  readonly addressContract: string | null
  readonly decimals: number
  readonly defaultHotAddress: string | null
  /** The service's tip, when scanner_terminal told it (undefined: not known). */
  readonly tip: { readonly height: number; readonly hash: string } | null | undefined
  /** Where it came from, for the start log. */
  readonly source: "scanner_terminal" | "settings"
}

interface ScannerTerminal {
  readonly tokenNetwork: string
  readonly typeContract: number
  readonly decimals: number
  readonly addressContract: string | null
  readonly defaultHotAddress: string | null
  readonly tip: { readonly height: number | string; readonly hash: string } | null
}

/**
 * scanner_terminal when the service has it; else the fallback. A refusal that names the terminal
 * (10040 unknown, 10200 not crypto) or the key (10405) is thrown: the tool cannot serve it.
 */
export const readTerminal = async (
  service: ServiceClient,
  tokenNetwork: string,
  fallback: { readonly addressContract: string | null; readonly decimals: number }
): Promise<TerminalInfo> => {
  try {
    const { result } = await service.get<ScannerTerminal>("scanner_terminal", { tokenNetwork })
    return {
      tokenNetwork,
      addressContract: result.typeContract === 0 ? null : result.addressContract,
      decimals: result.decimals,
      defaultHotAddress: result.defaultHotAddress,
      tip: result.tip === null ? null : { height: Number(result.tip.height), hash: result.tip.hash },
      source: "scanner_terminal"
    }
  } catch (error) {
    // Only an unknown action (404 without 10040) means a service that predates C19 §10.
    const missing = error instanceof ServiceRefusal && error.status === 404 && error.code !== 10040
    if (!missing) throw error
    return { tokenNetwork, ...fallback, defaultHotAddress: null, tip: undefined, source: "settings" }
  }
}
