import { DomainError } from "@recall/contracts";
import { ConcurrencyCap } from "./concurrency-caps";

const cap = () =>
  new ConcurrencyCap({
    what: "exports",
    total: 3,
    perContext: 2,
    settings: { total: "RECALL_EXPORT_CONCURRENCY", perContext: "RECALL_EXPORT_CONTEXT_CONCURRENCY" },
    retryAfterSeconds: 10,
  });

/** Holds a slot until the returned release is called. */
function hold(c: ConcurrencyCap, contextId: string) {
  let release!: () => void;
  const held = c.run(contextId, () => new Promise<void>((resolve) => (release = resolve)));
  return { release: () => release(), held };
}

const refusal = (c: ConcurrencyCap, contextId: string) => c.run(contextId, async () => "ran").catch((err: unknown) => err);

test("past the context's cap, then past the total, a run is refused at once with 429 naming the cap", async () => {
  const c = cap();
  const a1 = hold(c, "a");
  hold(c, "a");
  const context = await refusal(c, "a");
  expect(context).toBeInstanceOf(DomainError);
  expect(context).toMatchObject({ status: 429, problem: "too_many_context_exports", details: { retryAfterSeconds: 10 } });
  expect((context as Error).message).toMatch(/RECALL_EXPORT_CONTEXT_CONCURRENCY/);
  hold(c, "b");
  const total = await refusal(c, "c");
  expect(total).toMatchObject({ status: 429, problem: "too_many_exports" });
  expect((total as Error).message).toMatch(/RECALL_EXPORT_CONCURRENCY/);
  expect(c.inUse).toBe(3);

  a1.release();
  await a1.held;
  expect(c.inUse).toBe(2);
  await expect(c.run("c", async () => "ran")).resolves.toBe("ran");
});

test("a run that throws gives its slot back", async () => {
  const c = cap();
  await expect(c.run("a", () => Promise.reject(new Error("client went away")))).rejects.toThrow("client went away");
  await expect(c.run("a", () => Promise.reject(new Error("again")))).rejects.toThrow("again");
  expect(c.inUse).toBe(0);
  const [x, y] = [hold(c, "a"), hold(c, "a")];
  expect(c.inUse).toBe(2);
  x.release();
  y.release();
  await Promise.all([x.held, y.held]);
  expect(c.inUse).toBe(0);
});
