import type { z } from "zod";
import { MalformedOutputError, OutputValidationError } from "./llm-errors";
import type { Usage } from "./model-client";

/** Parses a JSON text answer; anything that is not one complete JSON value is malformed. */
export function parseJsonOutput(text: string, usage: Usage): unknown {
  if (text.trim() === "") throw new MalformedOutputError("empty", "model returned no content", text, usage);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new MalformedOutputError("not_json", `model output is not JSON: ${(err as Error).message}`, text, usage);
  }
}

/** Validates parsed output against the caller's schema. */
export function validateOutput<T>(schema: z.ZodType<T>, value: unknown, rawText: string, usage: Usage): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new OutputValidationError(result.error.issues, rawText, usage);
  return result.data;
}

export function isOutputFailure(err: unknown): err is MalformedOutputError | OutputValidationError {
  return err instanceof MalformedOutputError || err instanceof OutputValidationError;
}
