// A document's parse cost grows linearly with its size, whatever its shape: the hostile
// inputs (megabytes with no paragraph break, no full stop, or no whitespace at all) are
// timed (CPU time) at 1, 2 and 4 MB (a quarter of that for a slow shape) in the same run, and 4 MB may take at
// most 8× the 1 MB time: linear is 4×, quadratic 16×; the margin is the noise of a CPU-time ratio in a Jest worker
// whose heap holds earlier test files (5.8× was measured once for a linear parser while the suite ran).
import { parseDocument, type ParseInput } from "./document-parser";

const MB = 1024 * 1024;
const FLOOR_MS = 25;
const WORDS = ["alpha", "river", "stone", "cloud", "garden", "blue", "north", "paper"];

function words(bytes: number): string {
  const parts: string[] = [];
  for (let size = 0, i = 0; size < bytes; i++) {
    const word = WORDS[i % WORDS.length]!;
    parts.push(word);
    size += word.length + 1;
  }
  return parts.join(" ");
}

const SHAPES: Record<string, (bytes: number) => ParseInput> = {
  "Markdown, one paragraph, no full stop": (bytes) => ({ format: "markdown", text: words(bytes) }),
  "plain text, one line": (bytes) => ({ format: "text", text: words(bytes) }),
  "Markdown without whitespace": (bytes) => ({ format: "markdown", text: "x".repeat(bytes) }),
};

type Timing = { ms: number; nodes: number };

/** CPU time of this process (not wall time: other processes on a shared machine do not count) for one parse. */
async function timed(input: ParseInput): Promise<Timing> {
  const started = process.cpuUsage();
  const nodes = (await parseDocument(input, { pdf: { timeoutMs: 60_000 } })).nodes.length;
  const used = process.cpuUsage(started);
  return { ms: (used.user + used.system) / 1_000, nodes };
}

/**
 * Each size's best of `runs`, the sizes taken in turn (1, 2, 4, 1, 2, 4, …): one slow run of a cheap input is noise
 * (a GC), and a machine that gets busier part-way slows every size alike instead of only the last.
 */
async function timedSizes(make: (bytes: number) => ParseInput, sizes: readonly number[], runs: number) {
  const inputs = sizes.map(make);
  const best: Timing[] = sizes.map(() => ({ ms: Infinity, nodes: 0 }));
  for (let run = 0; run < runs; run++)
    for (const [i, input] of inputs.entries()) {
      const { ms, nodes } = await timed(input);
      best[i] = { ms: Math.min(best[i]!.ms, ms), nodes };
    }
  return best;
}

describe.each(Object.entries(SHAPES))("%s", (_shape, make) => {
  it("costs linear time in its size (4 MB ≤ 8× the 1 MB time) and is cut into bounded nodes", async () => {
    // A first, untimed run warms the code up and tells the sizes and runs the timing needs: a shape that costs
    // seconds a megabyte (the sentence reader on one long paragraph) is timed at a quarter of the sizes, three
    // times each, which tells the same ratio in less time than one run of the full sizes and with less noise.
    const warm = await timed(make(MB));
    const [base, runs] = warm.ms < 500 ? [MB, 5] : [MB / 4, 3];
    const [one, two, four] = (await timedSizes(make, [base, 2 * base, 4 * base], runs)) as [Timing, Timing, Timing];
    // Below FLOOR_MS a run is mostly garbage collection; a quadratic cost is far above it at 4 MB (plain text
    // took 870 ms before byte offsets were counted in one pass).
    expect(four.ms).toBeLessThanOrEqual(8 * Math.max(one.ms, FLOOR_MS));
    expect(two.ms).toBeLessThanOrEqual(3 * Math.max(one.ms, FLOOR_MS));
    // Every node stays within the node size, so the number of nodes grows with the input too.
    expect(four.nodes).toBeGreaterThanOrEqual(3.8 * one.nodes);
    expect(four.nodes).toBeLessThanOrEqual(4.2 * one.nodes);
  }, 120_000);
});

it("cuts a long node at sentence ends found in bounded slices, never inside a sentence", async () => {
  const sentence = "Maria moved to Lisbon in spring and opened a bakery near the river. ";
  const text = sentence.repeat(2_000);
  const parsed = await parseDocument({ format: "markdown", text }, { pdf: { timeoutMs: 60_000 } });
  expect(parsed.nodes.length).toBeGreaterThan(30);
  for (const node of parsed.nodes) {
    expect(node.text.length).toBeLessThanOrEqual(4_000);
    expect(node.text.endsWith("river.")).toBe(true);
    expect(Buffer.from(text).subarray(node.start_byte, node.end_byte).toString()).toBe(node.text);
  }
});
