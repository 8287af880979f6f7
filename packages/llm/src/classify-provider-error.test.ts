import * as AnthropicErrors from "@anthropic-ai/sdk";
import * as OpenAiErrors from "openai";
import { classifyProviderError, kindForStatus } from "./classify-provider-error";
import { ProviderError } from "./llm-errors";

describe("classifyProviderError", () => {
  test.each([
    [429, "rate_limit"],
    [408, "timeout"],
    [401, "auth"],
    [403, "auth"],
    [400, "bad_request"],
    [404, "bad_request"],
    [409, "server"],
    [500, "server"],
    [503, "server"],
    [529, "server"],
  ])("status %i is %s", (status, kind) => {
    expect(kindForStatus(status)).toBe(kind);
  });

  test("SDK timeout errors of either SDK are timeouts, not connection errors", () => {
    for (const err of [new AnthropicErrors.APIConnectionTimeoutError(), new OpenAiErrors.APIConnectionTimeoutError()]) {
      expect(classifyProviderError(err)).toMatchObject({ kind: "timeout", retryable: true });
    }
  });

  test("a 503 with retry-after keeps the wait", () => {
    const err = OpenAiErrors.APIError.generate(503, { error: { message: "busy" } }, undefined, new Headers({ "retry-after": "3" }));
    const classified = classifyProviderError(err);
    expect(classified).toBeInstanceOf(ProviderError);
    expect(classified).toMatchObject({ kind: "server", retryable: true, retryAfterMs: 3_000, status: 503 });
  });

  test("errors that are not provider failures pass through unchanged", () => {
    const bug = new TypeError("undefined is not a function");
    const abort = new AnthropicErrors.APIUserAbortError();
    expect(classifyProviderError(bug)).toBe(bug);
    expect(classifyProviderError(abort)).toBe(abort);
  });
});
