// The CPU pool runs real tasks on real threads: the rules and document parsing give what they
// give in-process, a task past its time or heap limit ends with class `budget` while the
// process (its event loop and the pool's other tasks) goes on, and background work cannot take
// the interactive lane's threads.
import type { ExtractionInput } from "@recall/contracts";
import { isClassifiedError } from "@recall/contracts";
import { CpuBudgetError, CpuPool, inlineCpu, type CpuPoolOptions } from "./cpu-pool";

const LIMITS: CpuPoolOptions = { interactiveThreads: 1, backgroundThreads: 1, taskTimeoutMs: 30_000, maxHeapMb: 512 };

const turn: ExtractionInput = {
  text: "I'm Alice, CTO at Acme. Always respond in bullet points.",
  kind: "turn",
  role: "user",
  referenceTime: new Date("2026-12-01T10:00:00Z"),
  knownEntities: [],
  knownAttributes: [],
  activeInstructions: [],
};

/** A Markdown document whose sentence splitting takes a while: word salad with no full stop. */
function slowMarkdown(mb: number): string {
  const words = ["alpha", "river", "stone", "cloud", "garden", "blue", "north", "paper"];
  const parts: string[] = [];
  for (let i = 0, size = 0; size < mb * 1024 * 1024; i++, size += 6) parts.push(words[i % words.length]!);
  return parts.join(" ");
}

/** The longest gap between ticks of a 10 ms timer while `work` runs: how long the event loop was blocked. */
async function longestStall<T>(work: Promise<T>): Promise<{ result: PromiseSettledResult<T>; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 10);
  const [result] = await Promise.allSettled([work]);
  clearInterval(timer);
  return { result, stallMs };
}

describe("CpuPool", () => {
  let pool: CpuPool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it("reads a turn with the rules on a thread exactly as in-process", async () => {
    pool = new CpuPool(LIMITS);
    const threaded = await pool.run("rules", turn, { threshold: 0.7 }, { lane: "interactive" });
    const inline = await inlineCpu.run("rules", turn, { threshold: 0.7 }, { lane: "interactive" });
    expect(threaded).toEqual(inline);
    expect(threaded.attempt.diff.attributes).toEqual(expect.arrayContaining([expect.objectContaining({ key: "role", value: "CTO" })]));
  });

  it("parses a document from its bytes on a thread (a Buffer crosses as bytes)", async () => {
    pool = new CpuPool(LIMITS);
    const bytes = Buffer.from("<html><body><h1>Team</h1><p>Alice Chen leads storage.</p></body></html>");
    const result = await pool.run("parse_document", { format: "html", bytes }, { pdf: { timeoutMs: 10_000 } }, { lane: "background" });
    if (!("parsed" in result)) throw new Error(`unreadable: ${result.unreadable}`);
    expect(result.parsed.nodes.map((n) => n.heading_path)).toEqual([["Team"]]);
    expect(result.parsed.text).toContain("Alice Chen leads storage.");
    // A file that is not its format is an answer (the work item fails as validation), not a thread crash.
    const broken = await pool.run(
      "parse_document",
      { format: "pdf", bytes: Buffer.from("not a pdf") },
      { pdf: { timeoutMs: 10_000 } },
      { lane: "background" },
    );
    expect(broken).toEqual({ unreadable: expect.stringMatching(/not a readable PDF/) });
  });

  it("ends a task past its time limit with class budget, keeps the event loop free meanwhile, and runs the next task", async () => {
    pool = new CpuPool({ ...LIMITS, taskTimeoutMs: 3_000 });
    const slow = pool.run(
      "parse_document",
      { format: "markdown", text: slowMarkdown(8) },
      { pdf: { timeoutMs: 10_000 } },
      { lane: "background" },
    );
    const { result, stallMs } = await longestStall(slow);
    expect(result.status).toBe("rejected");
    const err = (result as PromiseRejectedResult).reason as Error;
    expect(err).toBeInstanceOf(CpuBudgetError);
    expect(isClassifiedError(err) && err.errorClass).toBe("budget");
    expect(isClassifiedError(err) && err.retryable).toBe(false);
    expect(err.message).toContain("time limit of 3000 ms");
    // The parse ran on a thread: this loop kept ticking (a blocked loop would show the whole three seconds).
    expect(stallMs).toBeLessThan(1_500);
    const next = await pool.run("rules", turn, { threshold: 0.7 }, { lane: "background" });
    expect(next.attempt.finished).toBe(true);
  });

  it("ends a task past its heap limit with class budget and replaces the thread", async () => {
    pool = new CpuPool({ ...LIMITS, maxHeapMb: 64 });
    const html = `<html><body>${"<div><p>cell</p><span>x</span></div>".repeat(200_000)}</body></html>`;
    const huge = pool.run(
      "parse_document",
      { format: "html", bytes: Buffer.from(html) },
      { pdf: { timeoutMs: 10_000 } },
      { lane: "background" },
    );
    await expect(huge).rejects.toThrow(/memory limit of 64 MB/);
    const next = await pool.run("rules", turn, { threshold: 0.7 }, { lane: "background" });
    expect(next.attempt.finished).toBe(true);
  });

  it("stops a running task when its caller aborts (a shutdown, the stage's wall budget)", async () => {
    pool = new CpuPool(LIMITS);
    const controller = new AbortController();
    const slow = pool.run(
      "parse_document",
      { format: "markdown", text: slowMarkdown(4) },
      { pdf: { timeoutMs: 10_000 } },
      { lane: "background", signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error("worker shutting down")), 200);
    await expect(slow).rejects.toThrow();
    await expect(slow).rejects.not.toBeInstanceOf(CpuBudgetError);
  });

  it("keeps the interactive lane's thread free of background work", async () => {
    pool = new CpuPool(LIMITS);
    const background = [1, 2].map(() =>
      pool!.run("parse_document", { format: "markdown", text: slowMarkdown(0.5) }, { pdf: { timeoutMs: 10_000 } }, { lane: "background" }),
    );
    // One background task runs, the other waits for the background thread.
    expect(pool.waiting("background")).toBe(1);
    const interactive = await pool.run("rules", turn, { threshold: 0.7 }, { lane: "interactive" });
    expect(interactive.attempt.finished).toBe(true);
    // The interactive turn finished while the second background task was still waiting.
    expect(pool.waiting("background")).toBe(1);
    await Promise.all(background);
    expect(pool.waiting("background")).toBe(0);
  });
});
