// The read caps' pieces on their own: excerpts around the query's words with exact byte offsets,
// whole characters at every cut, and the worst text JSON can write still within the answer budget.
import { READ_LIMITS, clipped, countWithin, excerptOf, jsonBytes, queryStems } from "./answer-bounds";

const filler = (chars: number) => "alpha beta gamma delta ".repeat(Math.ceil(chars / 23)).slice(0, chars);

/** The excerpt is the whole text's bytes at its offsets. */
function expectOffsetsExact(whole: string, e: ReturnType<typeof excerptOf>) {
  const bytes = Buffer.from(whole, "utf8");
  expect(e.excerpt!.text_bytes).toBe(bytes.length);
  expect(bytes.subarray(e.excerpt!.start_byte, e.excerpt!.end_byte).toString("utf8")).toBe(e.text);
}

test("a text within the cap is answered whole, without offsets", () => {
  expect(excerptOf("short text about lorem", "lorem")).toEqual({ text: "short text about lorem", truncated: false });
});

test("the excerpt holds the word found late in a long text, with a little of what precedes it", () => {
  const text = `${filler(50_000)} the zeppelin landed ${filler(50_000)}`;
  const e = excerptOf(text, "Zeppelin");
  expect(e.truncated).toBe(true);
  expect(e.text.length).toBeLessThanOrEqual(READ_LIMITS.excerptChars);
  expect(e.text).toContain("the zeppelin landed");
  expect(e.text.indexOf("zeppelin")).toBeGreaterThan(100);
  expectOffsetsExact(text, e);
});

test("of several places, the one where most of the query's words occur together is chosen", () => {
  const text = `${filler(5_000)} budget ${filler(20_000)} quarterly budget review ${filler(20_000)} review ${filler(5_000)}`;
  const e = excerptOf(text, "quarterly budget review");
  expect(e.text).toContain("quarterly budget review");
});

test("a common ending is dropped so the stemmed search's hit is found: meetings finds meeting", () => {
  expect(queryStems("Meetings planned, a to be")).toEqual(["meeting", "plann"]);
  const text = `${filler(10_000)} the meeting moved ${filler(10_000)}`;
  expect(excerptOf(text, "meetings").text).toContain("the meeting moved");
});

test("without a word of the query in the text (a vector hit), the excerpt is the text's beginning", () => {
  const text = filler(10_000);
  const e = excerptOf(text, "unrelated");
  expect(e.text).toBe(text.slice(0, READ_LIMITS.excerptChars));
  expect(e.excerpt).toMatchObject({ start_byte: 0, end_byte: READ_LIMITS.excerptChars });
});

test("multi-byte text: offsets count UTF-8 bytes and no cut splits a surrogate pair", () => {
  const text = `${"日本語🎉".repeat(3_000)} zeppelin ${"🎉é".repeat(3_000)}`;
  for (const query of ["zeppelin", "none"]) {
    const e = excerptOf(text, query);
    expect(e.text).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
    expectOffsetsExact(text, e);
  }
  expect(clipped("🎉".repeat(10), 5).text).toBe("🎉🎉");
});

test("a text repeating the query's word throughout is cut from its first occurrences", () => {
  // Only the first MAX_MATCHES matches are looked at, so the work does not grow with the text.
  const e = excerptOf("lorem ".repeat(1_000_000), "lorem ipsum");
  expect(e.text.startsWith("lorem")).toBe(true);
  expect(e.excerpt!.start_byte).toBe(0);
});

test("a hundred hits of the costliest characters JSON writes still fit the answer budget", () => {
  // \u0001 is written as six bytes, the most any character takes.
  const worst = "\u0001".repeat(200_000);
  const hit = { kind: "turn", id: "0c9a7e61-3f2b-4b8d-a5e4-6d1c2b3a4f50", ...excerptOf(worst, "x"), score: 1, raw_score: 1, ranks: {} };
  expect(jsonBytes(Array.from({ length: 100 }, () => hit))).toBeLessThan(READ_LIMITS.answerBytes);
});

test("countWithin keeps the items that fit, and always one so a page moves on", () => {
  const items = Array.from({ length: 10 }, () => "x".repeat(98));
  expect(countWithin(items, 1_000)).toBe(9);
  expect(countWithin(items, 10)).toBe(1);
  expect(countWithin([], 10)).toBe(0);
});
