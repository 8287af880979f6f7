import { countTokens } from "gpt-tokenizer/cjs/encoding/o200k_base";
import { promptTokens } from "./prompt-tokens";
import { factsRequest } from "./testing/test-clients";

describe("promptTokens", () => {
  test("is at least the o200k count of everything sent, repair included", async () => {
    const request = {
      ...factsRequest(),
      user: "I moved to Berlin last May; my sister Dana works at Globex as a nurse. ".repeat(50),
      repair: { previousOutput: '{"facts": "Dana"}', problems: ["facts: expected array, received string"] },
    };
    const counted = await promptTokens(request, Infinity);
    const plain = countTokens([request.system, request.user, request.repair.previousOutput, ...request.repair.problems].join("\n"));

    expect(counted).toBeGreaterThan(plain);
    expect(counted).toBeLessThan(plain * 2 + 1_000);
  });

  test("stops counting once past the limit", async () => {
    const request = { ...factsRequest(), user: "word ".repeat(400_000) };

    await expect(promptTokens(request, 1_000)).resolves.toBe(Infinity);
    await expect(promptTokens(request, 10_000_000)).resolves.toBeGreaterThan(400_000);
  });

  test("a megabyte without whitespace is counted, each 48 characters at most one piece", async () => {
    // Whole, one run costs the square of its length in BPE merges; cut, it is linear.
    const request = { ...factsRequest(), user: "x".repeat(1_000_000) };
    const counted = await promptTokens(request, Infinity);

    expect(counted).toBeGreaterThan(1_000_000 / 48);
    expect(counted).toBeLessThan(1_000_000);
  });
});
