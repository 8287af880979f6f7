// How many tokens a request's prompt costs, counted before the call so that no call can spend more than its
// budget has left. Counted with the o200k BPE (gpt-tokenizer), then scaled up: a provider's own tokenizer
// (Anthropic's especially) splits the same text into more pieces, and the count must be an upper bound.
import { countTokens } from "gpt-tokenizer/cjs/encoding/o200k_base";
import type { z } from "zod";
import type { CompletionRequest } from "./model-client";
import { jsonSchemaFor } from "./output-schema";

/** The provider's count over o200k's, at the most, for prose and JSON (Claude's tokenizer runs 10–30% above). */
const PROVIDER_TOKENIZER_MARGIN = 1.35;
/** Message framing, roles and the tool or response-format wrapper around the schema. */
const FRAMING_TOKENS = 64;
/**
 * A run of characters without whitespace is cut this often before counting: BPE merges inside one
 * pre-tokenized piece cost the square of its length (100,000 letters without a space take seconds), and
 * the cut adds at most one token a piece, which the margin covers.
 */
const MAX_RUN = 48;
/** Counted a slice at a time, yielding between slices, so a megabyte prompt never holds the event loop. */
const SLICE_CHARS = 16_384;

const schemaTokens = new WeakMap<z.ZodType, number>();

/**
 * The prompt's tokens as the provider may count them, or `Infinity` as soon as the count passes `limit`
 * (counting stops there: the cost is bounded by the budget, not by the prompt).
 */
export async function promptTokens(request: CompletionRequest<unknown>, limit: number): Promise<number> {
  let raw = FRAMING_TOKENS / PROVIDER_TOKENIZER_MARGIN + schemaCost(request.schema);
  const parts = [request.system, request.user];
  if (request.repair) parts.push(request.repair.previousOutput, ...request.repair.problems);
  for (const part of parts) {
    for (let start = 0; start < part.length; start += SLICE_CHARS) {
      raw += countTokens(cutLongRuns(part.slice(start, start + SLICE_CHARS)));
      if (scaled(raw) > limit) return Infinity;
      if (start + SLICE_CHARS < part.length) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return scaled(raw);
}

function scaled(raw: number): number {
  return Math.ceil(raw * PROVIDER_TOKENIZER_MARGIN);
}

function schemaCost(schema: z.ZodType): number {
  const known = schemaTokens.get(schema);
  if (known !== undefined) return known;
  const cost = countTokens(JSON.stringify(jsonSchemaFor(schema)));
  schemaTokens.set(schema, cost);
  return cost;
}

const LONG_RUN = new RegExp(`\\S{${MAX_RUN}}`, "g");

function cutLongRuns(text: string): string {
  return text.replace(LONG_RUN, "$& ");
}
