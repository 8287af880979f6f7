// JSON Schemas sent to the providers, derived from the zod schema the output is validated with.
import { z } from "zod";
import { openAiZodHelpers } from "./provider-sdks";

export type JsonSchema = { [key: string]: unknown };

const SCHEMA_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function assertSchemaName(name: string): void {
  if (!SCHEMA_NAME.test(name)) {
    throw new TypeError(`schemaName "${name}" must be 1-64 letters, digits, _ or - (a provider tool/schema name)`);
  }
}

/**
 * The JSON Schema of what the model must write (Anthropic tool input). That is the
 * schema's *input* side, since the model's JSON is what gets parsed: a `.default()` field
 * may be omitted and zod fills it in.
 */
export function jsonSchemaFor(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: "input" }) as JsonSchema;
  if (json["type"] !== "object") {
    throw new TypeError("structured output schemas must be a z.object at the top level");
  }
  return json;
}

/**
 * The schema for OpenAI strict structured outputs, converted by the OpenAI SDK's own
 * helper, which tracks the subset strict mode accepts: every object closed, every property
 * required. Schemas that cannot be expressed are refused with an Error naming the field,
 * instead of being silently loosened: a plain `.optional()` (use `.nullable()`, and the
 * model answers null), open objects (`z.record`, `z.looseObject`), transforms.
 */
export function strictJsonSchemaFor(schema: z.ZodType, name: string): JsonSchema {
  const format = openAiZodHelpers().zodResponseFormat(schema, name);
  return format.json_schema.schema as JsonSchema;
}
