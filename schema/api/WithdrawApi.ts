/** Withdrawals (session) `/core/v1/wallet/create_withdraw` (CONTRACT C15 "Withdrawals"). */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import {
  InvalidAddress,
  NotACryptoTerminal,
  SourceAddressRefused,
  SourceTransferNotSupported,
  TerminalNotAllowed
} from "../CryptoErrors.ts"
import { Envelope } from "../Envelope.ts"
import {
  BalanceNotEnough,
  ConfirmationExpired,
  ConfirmationFailed,
  InvalidRequest,
  NonceExists,
  RateLimited,
  TerminalNotFound,
  TooManyDecimals,
  TransactionNotPending,
  WalletBlocked
} from "../Errors.ts"
import { SessionAuth } from "../Security.ts"
import { ConfirmQuery, TwoFactorHeaders } from "../Transfer.ts"
import { CreateWithdrawIn, CreateWithdrawOut } from "../Withdrawals.ts"

export class WithdrawApi extends HttpApiGroup.make("withdraw")
  .add(
    HttpApiEndpoint.post("create_withdraw", "/create_withdraw", {
      query: ConfirmQuery,
      headers: TwoFactorHeaders,
      payload: CreateWithdrawIn,
      success: Envelope(CreateWithdrawOut),
      error: [
        InvalidRequest,
        TerminalNotFound,
        NotACryptoTerminal,
        TerminalNotAllowed,
        InvalidAddress,
        TooManyDecimals,
        WalletBlocked,
        NonceExists,
        SourceTransferNotSupported,
        SourceAddressRefused,
        BalanceNotEnough,
        TransactionNotPending,
        ConfirmationFailed,
        ConfirmationExpired,
        RateLimited
      ]
    }).annotateMerge(
      OpenApi.annotations({
        description:
          "Two-step, as internal_transfer. Step one (no query) reserves amount + fee (Withdraw tariff + the terminal's networkFee) and records the Outcome awaiting confirmation; step two (confirmationTimetick with confirmationCode, or X-SignResult) answers Confirmed and queues it for the signer."
      })
    )
  )
  .middleware(SessionAuth)
  .prefix("/core/v1/wallet")
  .annotateMerge(OpenApi.annotations({ title: "Withdrawals", description: "Session: the active wallet" })) {}
