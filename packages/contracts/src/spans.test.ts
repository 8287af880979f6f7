import { byteSpanOf, locateQuote, sliceBytes } from "./spans";

describe("byte spans", () => {
  const text = "Zoë lives in Zürich. I'm Alice, CTO at Acme.";

  test("locateQuote returns UTF-8 byte offsets that slice back to the quote", () => {
    const span = locateQuote(text, "CTO at Acme");
    expect(span).toBeDefined();
    expect(span!.start_byte).toBe(Buffer.byteLength(text.slice(0, text.indexOf("CTO")), "utf8"));
    expect(sliceBytes(text, span!)).toBe("CTO at Acme");
  });

  test("a quote that is not in the text has no span", () => {
    expect(locateQuote(text, "CEO at Acme")).toBeUndefined();
  });

  test("byteSpanOf counts multi-byte characters", () => {
    const i = text.indexOf("Zürich");
    expect(byteSpanOf(text, i, i + "Zürich".length)).toEqual({ start_byte: 14, end_byte: 21 });
    expect(sliceBytes(text, { start_byte: 14, end_byte: 21 })).toBe("Zürich");
  });

  test("spans outside the text slice to nothing", () => {
    expect(sliceBytes(text, { start_byte: 10, end_byte: 10_000 })).toBeUndefined();
  });
});
