/**
 * Private investment actions (CONTRACT C17 "Private"): thin calls into Investments, writes naming their
 * operator — X-Owner-Id, or for a named service key its name (C19 §2; the credential middleware refused
 * a named key sending another name).
 */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../../schema/Api.ts"
import { ok } from "../../../schema/Envelope.ts"
import { CurrentService } from "../../../schema/Security.ts"
import { Investments, ownerOf } from "../../services/invest/Investments.ts"

const operator = (header: string | undefined) => CurrentService.use((key) => ownerOf(header ?? key.name))

export const PrivateInvestHandlers = HttpApiBuilder.group(
  Api,
  "privateInvest",
  Effect.fn(function* (handlers) {
    const investments = yield* Investments
    return handlers
      .handle("create_investment", ({ payload, headers }) =>
        Effect.flatMap(operator(headers["x-owner-id"]), (owner) =>
          Effect.flatMap(investments.create(owner, payload), ok)
        )
      )
      .handle("activate_investment", ({ payload, headers }) =>
        Effect.flatMap(operator(headers["x-owner-id"]), (owner) =>
          Effect.flatMap(investments.activate(owner, String(payload.timetick)), ok)
        )
      )
      .handle("set_profits_for_investments", ({ payload, headers }) =>
        Effect.flatMap(operator(headers["x-owner-id"]), (owner) =>
          Effect.flatMap(investments.setProfits(owner, payload), ok)
        )
      )
      .handle("get_investment", ({ query }) => Effect.flatMap(investments.get(String(query.timetick)), ok))
  })
)
