import type { z } from "zod";
import type { Provider } from "./model-ref";

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

/** A second attempt after unusable output: the model is shown what it said and what was wrong. */
export interface RepairTurn {
  previousOutput: string;
  problems: string[];
}

export interface CompletionRequest<T> {
  system: string;
  user: string;
  /** A z.object at the top level; see output-schema.ts for what OpenAI strict mode accepts. */
  schema: z.ZodType<T>;
  /** Tool name (Anthropic) or json_schema name (OpenAI): letters, digits, _ and -, at most 64. */
  schemaName: string;
  maxTokens: number;
  signal?: AbortSignal;
  repair?: RepairTurn;
}

export interface Completion<T> {
  value: T;
  usage: Usage;
  /** The model id the provider reports having used. */
  model: string;
  /** The provider's response body as the SDK returned it, for traces and debugging. */
  raw: unknown;
}

/**
 * One configured model. Implementations make exactly one HTTP attempt per call: retries
 * belong to the queue, which sees the classified error and decides.
 */
export interface ModelClient {
  readonly provider: Provider;
  readonly model: string;
  complete<T>(request: CompletionRequest<T>): Promise<Completion<T>>;
}

export function addUsage(a: Usage, b: Usage): Usage {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
}

export const NO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0 });
