/**
 * Step two of every two-step operation (internal_transfer, swap, create_withdraw; CONTRACT C10): a
 * code or a signature is required, and the wallet actor that holds the reservation checks the proof
 * against its pending confirmation and settles (or queues) what `kind` names.
 */
import { Effect } from "effect"
import type { WalletEntity } from "../../../actors/wallet/Protocol.ts"
import { InvalidRequest } from "../../../schema/Errors.ts"
import { asTxId } from "../../../schema/Ids.ts"
import { delivered } from "../../platform/Delivery.ts"

type WalletClient = Effect.Success<typeof WalletEntity.client>

/** 10001 unless the request carries a confirmation code or an X-SignResult. */
export const requireProof = (code: string | undefined, signResult: string | undefined) =>
  code === undefined && signResult === undefined
    ? Effect.fail(
        new InvalidRequest({
          message: "confirmationCode: required with confirmationTimetick (or the X-SignResult header)"
        })
      )
    : Effect.void

/** The proof handed to the sender's wallet actor, which alone settles its reservation. */
export const confirmThrough = (
  walletActor: WalletClient,
  walletId: string,
  txId: string,
  code: string | undefined,
  signResult: string | undefined,
  kind: "transfer" | "swap" | "withdraw" | "partner"
) =>
  walletActor(walletId)
    .ConfirmTransfer({
      txId: asTxId(txId),
      code: code ?? null,
      signatureBase64: signResult !== undefined && signResult.length > 0 ? signResult : null,
      kind
    })
    .pipe(delivered)
