// The few named errors of this package. Callers branch on the class and its fields,
// never on message text.
import { ClassifiedError } from "@recall/contracts";
import type { z } from "zod";
import type { ModelTier } from "./create-model-client";
import type { Usage } from "./model-client";

export type ProviderErrorKind = "rate_limit" | "server" | "timeout" | "connection" | "auth" | "bad_request";

const RETRYABLE_KINDS: ReadonlySet<ProviderErrorKind> = new Set(["rate_limit", "server", "timeout", "connection"]);

/** The provider could not be reached or refused the call; `retryable` tells the queue whether to try again. */
export class ProviderError extends ClassifiedError {
  override name = "ProviderError";
  readonly errorClass = "provider";
  readonly retryable: boolean;
  override readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;

  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    options: { status?: number; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.retryable = RETRYABLE_KINDS.has(kind);
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

export type MalformedReason = "not_json" | "truncated" | "missing_tool_call" | "refusal" | "empty";

/** The model answered but not with a complete JSON value; `rawText` is what it did say. */
export class MalformedOutputError extends ClassifiedError {
  override name = "MalformedOutputError";
  // A model's unusable answer reaches the queue only after the repair retry and any escalation
  // failed; it is the provider's fault, not the input's, and a later attempt may well succeed.
  readonly errorClass = "provider";
  readonly retryable = true;

  constructor(
    readonly reason: MalformedReason,
    message: string,
    readonly rawText: string,
    /** Tokens the failed call still cost; the budget is charged for them. */
    readonly usage: Usage,
  ) {
    super(message);
  }
}

/** The output was JSON but did not satisfy the schema (or, after a repair, was still unusable). */
export class OutputValidationError extends ClassifiedError {
  override name = "OutputValidationError";
  readonly errorClass = "provider";
  readonly retryable = true;
  /** 2 when the repair retry also failed. */
  readonly attempts: number;

  constructor(
    readonly issues: z.core.$ZodIssue[],
    readonly rawText: string,
    readonly usage: Usage,
    options: { attempts?: number; cause?: unknown } = {},
  ) {
    super(`model output failed validation: ${issues.map(formatIssue).join("; ")}`, { cause: options.cause });
    this.attempts = options.attempts ?? 1;
  }
}

export function formatIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.length > 0 ? issue.path.map(String).join(".") : "(root)";
  return `${path}: ${issue.message}`;
}

/** No usable model for a tier (or for embeddings); the message names the environment variables to set. */
export class NoProviderError extends ClassifiedError {
  override name = "NoProviderError";
  readonly errorClass = "no_provider";
  readonly retryable = false;

  constructor(
    readonly tier: ModelTier | "embedding",
    /** The variables that are missing, e.g. ["ANTHROPIC_API_KEY"]. */
    readonly missing: string[],
    message: string,
  ) {
    super(message);
  }
}

export type BudgetLimit = "tokens" | "wall_time";

/** A work item used up its token or wall-time allowance; retrying the same item will not help. */
export class BudgetExceededError extends ClassifiedError {
  override name = "BudgetExceededError";
  readonly errorClass = "budget";
  readonly retryable = false;

  constructor(
    readonly limit: BudgetLimit,
    readonly tokensUsed: number,
    readonly maxTokens: number,
    readonly elapsedMs: number,
    readonly maxWallMs: number,
    /** Set when the call was not made: the tokens its prompt would have taken (more than were left, or Infinity). */
    readonly promptTokens?: number,
  ) {
    super(
      promptTokens !== undefined
        ? `token budget exceeded: the prompt needs ${Number.isFinite(promptTokens) ? `about ${promptTokens}` : "more than"} tokens and ${Math.max(0, maxTokens - tokensUsed)} of ${maxTokens} are left; the call was not made`
        : limit === "tokens"
          ? `token budget exceeded: used ${tokensUsed} of ${maxTokens}`
          : `wall-time budget exceeded: ${elapsedMs} ms elapsed of ${maxWallMs} ms`,
    );
  }
}
