import { Budget } from "./budget";
import { BudgetExceededError } from "./llm-errors";

describe("Budget", () => {
  test("charges add up and count against the token limit", () => {
    const budget = new Budget({ maxTokens: 1_000, maxWallMs: 60_000 });
    budget.charge({ inputTokens: 300, outputTokens: 100 });
    budget.charge({ inputTokens: 200, outputTokens: 50 });

    expect(budget.used).toEqual({ inputTokens: 500, outputTokens: 150, totalTokens: 650 });
    expect(budget.remainingTokens).toBe(350);
    expect(() => budget.assertAvailable()).not.toThrow();
  });

  test("refuses further calls once the tokens are spent, naming the numbers", () => {
    const budget = new Budget({ maxTokens: 100, maxWallMs: 60_000 });
    budget.charge({ inputTokens: 90, outputTokens: 30 });

    expect(budget.remainingTokens).toBe(0);
    const error = (() => {
      try {
        budget.assertAvailable();
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toMatchObject({ limit: "tokens", tokensUsed: 120, maxTokens: 100, retryable: false });
  });

  test("refuses further calls once the wall time is spent", () => {
    const budget = new Budget({ maxTokens: 1_000, maxWallMs: 5_000, startedAt: Date.now() - 6_000 });

    expect(budget.remainingMs).toBe(0);
    expect(() => budget.assertAvailable()).toThrow(BudgetExceededError);
    expect(() => budget.assertAvailable()).toThrow(/wall-time budget exceeded/);
  });

  test("remainingMs counts from startedAt", () => {
    const budget = new Budget({ maxTokens: 1_000, maxWallMs: 10_000, startedAt: Date.now() - 4_000 });
    expect(budget.remainingMs).toBeGreaterThan(5_900);
    expect(budget.remainingMs).toBeLessThanOrEqual(6_000);
  });

  test("signal aborts when the remaining wall time runs out", async () => {
    const budget = new Budget({ maxTokens: 1_000, maxWallMs: 1_000, startedAt: Date.now() - 900 });
    const signal = budget.signal();
    expect(signal.aborted).toBe(false);

    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    expect(budget.elapsedMs).toBeGreaterThanOrEqual(990);
  });

  test("signal follows the parent signal too", () => {
    const parent = new AbortController();
    const signal = new Budget({ maxTokens: 1_000, maxWallMs: 60_000 }).signal(parent.signal);
    parent.abort(new Error("cancelled"));

    expect(signal.aborted).toBe(true);
    expect(signal.reason).toEqual(new Error("cancelled"));
  });
});
