import { BudgetExceededError, type BudgetLimit } from "./llm-errors";
import type { Usage } from "./model-client";

export interface BudgetOptions {
  /** Input plus output tokens allowed across every model call of the work item. */
  maxTokens: number;
  maxWallMs: number;
  /** Epoch ms the work item started; defaults to now. Pass the job's start to count queue-side time. */
  startedAt?: number;
}

export interface TokensUsed extends Usage {
  totalTokens: number;
}

/**
 * Token and wall-time meter for one work item. Charging never throws: tokens already spent
 * are a fact, and a call that completed keeps its result. The next `assertAvailable()`
 * refuses to start another call instead.
 */
export class Budget {
  readonly maxTokens: number;
  readonly maxWallMs: number;
  readonly startedAt: number;
  #inputTokens = 0;
  #outputTokens = 0;

  constructor({ maxTokens, maxWallMs, startedAt = Date.now() }: BudgetOptions) {
    this.maxTokens = maxTokens;
    this.maxWallMs = maxWallMs;
    this.startedAt = startedAt;
  }

  charge(usage: Usage): void {
    this.#inputTokens += usage.inputTokens;
    this.#outputTokens += usage.outputTokens;
  }

  get used(): TokensUsed {
    const inputTokens = this.#inputTokens;
    const outputTokens = this.#outputTokens;
    return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
  }

  get remainingTokens(): number {
    return Math.max(0, this.maxTokens - this.used.totalTokens);
  }

  get elapsedMs(): number {
    return Date.now() - this.startedAt;
  }

  get remainingMs(): number {
    return Math.max(0, this.maxWallMs - this.elapsedMs);
  }

  /** Throws BudgetExceededError when no tokens or no wall time are left. */
  assertAvailable(): void {
    if (this.remainingTokens <= 0) throw this.exceeded("tokens");
    if (this.remainingMs <= 0) throw this.exceeded("wall_time");
  }

  /**
   * A signal that aborts when the wall time runs out (or when `parent` aborts), so an
   * in-flight call is cut at the budget rather than at the provider timeout.
   * The timer is unref'd by Node and does not keep the process alive.
   */
  signal(parent?: AbortSignal): AbortSignal {
    const wall = AbortSignal.timeout(Math.max(1, Math.ceil(this.remainingMs)));
    return parent === undefined ? wall : AbortSignal.any([parent, wall]);
  }

  exceeded(limit: BudgetLimit): BudgetExceededError {
    return new BudgetExceededError(limit, this.used.totalTokens, this.maxTokens, this.elapsedMs, this.maxWallMs);
  }

  /** A call whose prompt (counted before it is sent) leaves too little of the budget for an answer. */
  promptDoesNotFit(promptTokens: number): BudgetExceededError {
    return new BudgetExceededError("tokens", this.used.totalTokens, this.maxTokens, this.elapsedMs, this.maxWallMs, promptTokens);
  }
}
