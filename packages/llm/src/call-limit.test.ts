// The call limit: at most `max` calls run at once, the rest start in order of arrival as calls end, and a call whose
// signal aborts while it waits leaves the line without taking a slot.
import { CallLimit } from "./call-limit";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A call that records when it started and ends when `end` is called. */
function call(started: string[], name: string) {
  const gate = deferred();
  return {
    end: gate.resolve,
    run: async () => {
      started.push(name);
      await gate.promise;
      return name;
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test("at most `max` calls run; the others start in order of arrival as calls end", async () => {
  const limit = new CallLimit(2);
  const started: string[] = [];
  const calls = ["a", "b", "c", "d"].map((n) => call(started, n));
  const results = calls.map((c) => limit.run(c.run));
  await settle();
  expect([started, limit.running]).toEqual([["a", "b"], 2]);
  calls[1]!.end();
  await settle();
  expect(started).toEqual(["a", "b", "c"]);
  calls[0]!.end();
  await settle();
  expect([started, limit.running]).toEqual([["a", "b", "c", "d"], 2]);
  calls[2]!.end();
  calls[3]!.end();
  expect(await Promise.all(results)).toEqual(["a", "b", "c", "d"]);
  expect(limit.running).toBe(0);
});

test("a waiting call whose signal aborts leaves the line; a failed call frees its slot", async () => {
  const limit = new CallLimit(1);
  const started: string[] = [];
  const first = call(started, "first");
  const running = limit.run(first.run);
  const abort = new AbortController();
  const waiting = limit.run(call(started, "aborted").run, abort.signal);
  const last = call(started, "last");
  const after = limit.run(last.run);
  abort.abort(new Error("caller gave up"));
  await expect(waiting).rejects.toThrow("caller gave up");
  first.end();
  await running;
  await settle();
  expect(started).toEqual(["first", "last"]);
  last.end();
  await after;
  await expect(limit.run(() => Promise.reject(new Error("provider down")))).rejects.toThrow("provider down");
  expect(limit.running).toBe(0);
  await expect(limit.run(() => Promise.resolve("again"))).resolves.toBe("again");
  expect(() => new CallLimit(0)).toThrow("at least 1");
});
