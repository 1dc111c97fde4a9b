/**
 * The OpenAPI document shows what the envelope middleware really sends: every error response is
 * an ErrorEnvelope, and its description names the error tags and codes it may carry. The full
 * code table is published under `x-error-codes` and in the document's description.
 */
import { codeOf, errorCodes } from "./Errors.ts"

const errorEnvelopeSchema = {
  type: "object",
  required: ["result", "error", "id"],
  properties: {
    result: { type: "null" },
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "integer" }, message: { type: "string" } }
    },
    id: { type: "integer" }
  }
}

const tagsIn = (schema: unknown): Array<string> => {
  const text = JSON.stringify(schema ?? {})
  return Object.keys(errorCodes).filter((tag) => text.includes(`"${tag}"`))
}

const codeTable = Object.entries(errorCodes)
  .map(([tag, [code, status]]) => `| ${code} | ${tag} | ${status} |`)
  .join("\n")

export const envelopeErrors = (spec: Record<string, any>): Record<string, any> => {
  spec.components ??= {}
  spec.components.schemas ??= {}
  const schemas = spec.components.schemas
  schemas.ErrorEnvelope = errorEnvelopeSchema
  for (const path of Object.values<Record<string, any>>(spec.paths ?? {})) {
    for (const operation of Object.values<Record<string, any>>(path)) {
      if (operation === null || typeof operation !== "object" || operation.responses === undefined) continue
      operation.responses["400"] ??= { description: "InvalidRequest" }
      operation.responses["500"] ??= { description: "InternalError" }
      for (const [status, response] of Object.entries<Record<string, any>>(operation.responses)) {
        if (Number(status) < 400) continue
        const declared = response.content?.["application/json"]?.schema
        const resolved = declared?.$ref ? schemas[String(declared.$ref).split("/").pop()!] : declared
        const tags = new Set(tagsIn(resolved))
        if (status === "400") tags.add("InvalidRequest")
        if (status === "500") tags.add("InternalError")
        const listed = [...tags].map((tag) => `${tag} (${codeOf(tag)})`).join(", ")
        response.description = listed.length > 0 ? listed : response.description
        response.content = { "application/json": { schema: { $ref: "#/components/schemas/ErrorEnvelope" } } }
      }
    }
  }
  spec["x-error-codes"] = Object.fromEntries(
    Object.entries(errorCodes).map(([tag, [code, status]]) => [tag, { code, status }])
  )
  spec.info.description = `${spec.info.description ?? ""}\n\n| code | name | HTTP |\n|---|---|---|\n${codeTable}`
  return spec
}
