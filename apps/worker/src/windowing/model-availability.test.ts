// A window needs a fast model this process can call: none configured, or one configured without what it needs to be
// reached, sends a batch's turns the one-turn way (awaiting a model), not into windows that would fail.
import { configWith } from "@recall/config";
import { windowModelUsable } from "./model-availability";

test.each<[string, Parameters<typeof configWith>[0], boolean]>([
  ["no model configured at all", {}, false],
  ["a fast model without its key", { RECALL_FAST_MODEL: "anthropic:claude-test" }, false],
  ["a reachable fast model", { RECALL_FAST_MODEL: "openai-compatible:local", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }, true],
])("%s: %s", (_, settings, usable) => {
  expect(windowModelUsable({ config: configWith(settings) })).toBe(usable);
});
