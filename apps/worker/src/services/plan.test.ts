// A work item's budget is the lower of the service's limits and its context's own.
import { configWith } from "@recall/config";
import { contextConfigOf } from "@recall/contracts";
import { budgetLimits } from "./plan";

const service = configWith({ RECALL_MAX_TOKENS: "10000", RECALL_MAX_WALL_MS: "60000" });

test.each<[string, Record<string, unknown>, { maxTokens: number; maxWallMs: number }]>([
  ["no context limits: the service's", {}, { maxTokens: 10_000, maxWallMs: 60_000 }],
  ["lower context limits win", { max_tokens: 2_000, max_wall_ms: 5_000 }, { maxTokens: 2_000, maxWallMs: 5_000 }],
  ["a context cannot raise the service's limits", { max_tokens: 50_000, max_wall_ms: 900_000 }, { maxTokens: 10_000, maxWallMs: 60_000 }],
  ["values that are not positive numbers are ignored", { max_tokens: "2000", max_wall_ms: -1 }, { maxTokens: 10_000, maxWallMs: 60_000 }],
  ["a refused key leaves the others standing", { max_tokens: "2000", max_wall_ms: 5_000 }, { maxTokens: 10_000, maxWallMs: 5_000 }],
])("%s", (_, contextConfig, expected) => {
  expect(budgetLimits(service, contextConfigOf(contextConfig))).toEqual(expected);
});

test("the defaults are 500,000 tokens and 600 s", () => {
  expect(budgetLimits(configWith({}), {})).toEqual({ maxTokens: 500_000, maxWallMs: 600_000 });
});
