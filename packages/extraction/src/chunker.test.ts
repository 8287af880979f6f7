import { chunkText } from "./chunker";
import { sliceBytes } from "@recall/contracts";

test("chunks keep byte offsets that slice back to their text, across multi-byte characters", () => {
  const para = (i: number) => `Paragraph ${i}: Zoë met the café owner in Zürich and they talked for a while. `.repeat(8);
  const text = [1, 2, 3, 4, 5].map(para).join("\n\n");
  const chunks = chunkText(text, 1_000);
  expect(chunks.length).toBeGreaterThan(2);
  for (const chunk of chunks) {
    expect(chunk.text.length).toBeLessThanOrEqual(1_000);
    expect(sliceBytes(text, chunk)).toBe(chunk.text);
  }
  expect(chunks.map((c) => c.ordinal)).toEqual(chunks.map((_, i) => i));
});

test("a short text is one chunk; blank text is none", () => {
  expect(chunkText("Acme uses Postgres.")).toEqual([{ ordinal: 0, text: "Acme uses Postgres.", start_byte: 0, end_byte: 19 }]);
  expect(chunkText("  \n\n ")).toEqual([]);
});
