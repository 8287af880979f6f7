import { ImportLineError } from "@recall/memory";
import { linesOf } from "./import-body";

async function* chunks(parts: (string | Buffer)[], read: { count: number }): AsyncGenerator<Buffer> {
  for (const part of parts) {
    read.count++;
    yield Buffer.isBuffer(part) ? part : Buffer.from(part);
  }
}

async function collect(parts: (string | Buffer)[], maxLineBytes = 1_000): Promise<string[]> {
  const out: string[] = [];
  for await (const line of linesOf(chunks(parts, { count: 0 }), maxLineBytes)) out.push(line);
  return out;
}

async function refusal(parts: (string | Buffer)[], maxLineBytes: number, read = { count: 0 }): Promise<ImportLineError> {
  try {
    for await (const _ of linesOf(chunks(parts, read), maxLineBytes));
  } catch (err) {
    if (err instanceof ImportLineError) return err;
    throw err;
  }
  throw new Error("no refusal");
}

test("lines split across chunks, CRLF and a last line without its newline come out whole, blank lines kept", async () => {
  expect(await collect(["a\r\nb", "c\n\n", "d", "e"])).toEqual(["a", "bc", "", "de"]);
  expect(await collect(["x\n"])).toEqual(["x"]);
});

test("a UTF-8 sequence split between chunks is joined; an invalid one is refused naming its line", async () => {
  const euro = Buffer.from("€");
  expect(await collect([Buffer.concat([Buffer.from("1\n"), euro.subarray(0, 1)]), euro.subarray(1), Buffer.from("\n")])).toEqual([
    "1",
    "€",
  ]);
  const bad = await refusal([Buffer.from('{"a":1}\n{"b":"'), Buffer.from([0xff, 0x22, 0x7d, 0x0a])], 1_000);
  expect([bad.line, bad.field]).toEqual([2, "line"]);
  expect(bad.message).toMatch(/UTF-8/);
});

test("a line over the cap is refused as soon as the cap is passed, not when it ends", async () => {
  const read = { count: 0 };
  const err = await refusal(["ok\n", ...Array.from({ length: 1_000 }, () => "x".repeat(100))], 1_000, read);
  expect([err.line, err.field]).toEqual([2, "line"]);
  expect(read.count).toBeLessThanOrEqual(12);
  expect((await refusal([`${"y".repeat(1_001)}\n`], 1_000)).line).toBe(1);
});

test("one line in 5,000 chunks is joined whole (once, when it ends: the pending part is never re-split)", async () => {
  const parts = Array.from({ length: 5_000 }, () => "z".repeat(1_000));
  const lines = await collect([...parts, "\n"], 10_000_000);
  expect(lines).toHaveLength(1);
  expect(lines[0]!.length).toBe(5_000_000);
});
