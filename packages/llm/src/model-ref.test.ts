import { InvalidModelRefError, parseModelRef } from "./model-ref";

describe("parseModelRef", () => {
  test.each([
    ["anthropic:claude-sonnet-4-5", { provider: "anthropic", model: "claude-sonnet-4-5" }],
    ["openai:gpt-4.1-mini", { provider: "openai", model: "gpt-4.1-mini" }],
    ["openai-compatible:llama3", { provider: "openai-compatible", model: "llama3" }],
  ])("%s", (ref, expected) => {
    expect(parseModelRef(ref)).toEqual(expected);
  });

  test("keeps colons inside the model name", () => {
    expect(parseModelRef("openai-compatible:llama3:8b")).toEqual({ provider: "openai-compatible", model: "llama3:8b" });
  });

  test.each(["claude-sonnet-4-5", "anthropic:", "gemini:pro", ""])("rejects %p", (ref) => {
    expect(() => parseModelRef(ref)).toThrow(InvalidModelRefError);
    expect(() => parseModelRef(ref)).toThrow(/expected provider:model/);
  });
});
