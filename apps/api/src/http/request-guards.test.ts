import { MAX_JSON_DEPTH, nestingExceeds } from "./request-guards";

const bytes = (text: string) => Buffer.from(text);

test("nesting is counted outside strings only, byte by byte", () => {
  expect(nestingExceeds(bytes(`${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}`), MAX_JSON_DEPTH)).toBe(false);
  expect(nestingExceeds(bytes(`${"[".repeat(MAX_JSON_DEPTH + 1)}${"]".repeat(MAX_JSON_DEPTH + 1)}`), MAX_JSON_DEPTH)).toBe(true);
  expect(nestingExceeds(bytes(JSON.stringify({ text: "[".repeat(500) })), 2)).toBe(false);
  expect(nestingExceeds(bytes(JSON.stringify({ text: 'a \\" [[[ "' })), 1)).toBe(false);
  expect(nestingExceeds(bytes('{"a":{"b":{"c":1}}}'), 2)).toBe(true);
});
