// Export and import of a large context with bounded memory: 20,000 facts (each with a 1 KB quote) written straight
// into Postgres, exported over a real socket to a file and imported back from it, while this process (which serves
// both requests) samples its heap: the heap grows by far less than the export's size either way. And past
// RECALL_IMPORT_MAX_BYTES an import stops with 413.
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import request from "supertest";
import { startHarness, type Harness } from "../testing/harness";
import { createContext, type ContextHandle } from "../testing/api-client";

const FACTS = 20_000;
let h: Harness | undefined;
const dir = mkdtempSync(join(tmpdir(), "recall-export-"));
afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

// A full collection on demand, so what is sampled is the heap still in use, not garbage the collector has not reached yet.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const liveHeap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};

/** The largest live heap seen while `run` goes on (sampled every second), above what it was before. */
async function peakHeapGrowth(run: () => Promise<void>): Promise<number> {
  const before = liveHeap();
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, liveHeap())), 1_000);
  try {
    await run();
  } finally {
    clearInterval(timer);
  }
  return peak - before;
}

async function insertFacts(contextId: string): Promise<void> {
  await h!.api.db.$executeRaw`
    WITH e AS (
      INSERT INTO entities (id, context_id, name, identity_key, type, memory_category)
      VALUES (gen_random_uuid(), ${contextId}::uuid, 'Bulk', 'bulk', 'topic', 'knowledge') RETURNING id
    ), a AS (
      INSERT INTO assertions (id, context_id, subject_entity_id, predicate, object_literal, start_byte, end_byte, quote,
                              confidence, significance, memory_category, stage, trace_id)
      SELECT gen_random_uuid(), ${contextId}::uuid, e.id, 'fact_' || i, 'value ' || i, 0, 1000, repeat(md5(i::text), 32),
             0.9, 'high', 'knowledge', 'direct', 'bulk'
      FROM e, generate_series(1, ${FACTS}) i
      RETURNING id, subject_entity_id, predicate, object_literal
    )
    INSERT INTO attributes (id, context_id, entity_id, key, value, memory_category, confidence, assertion_id, valid_from)
    SELECT gen_random_uuid(), ${contextId}::uuid, a.subject_entity_id, a.predicate, a.object_literal, 'knowledge', 0.9, a.id, now() FROM a`;
}

function exportTo(port: number, ctx: ContextHandle, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get({ port, path: `/api/v1/${ctx.contextId}/export`, headers: { "API-KEY": ctx.apiKey } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`export answered ${res.statusCode}`));
      pipeline(res, createWriteStream(file)).then(resolve, reject);
    });
    req.on("error", reject);
  });
}

function importFrom(port: number, ctx: ContextHandle, body: Readable): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        port,
        method: "POST",
        path: `/api/v1/${ctx.contextId}/import`,
        headers: { "API-KEY": ctx.apiKey, "Content-Type": "application/x-ndjson" },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    body.pipe(req);
  });
}

test(`${FACTS} facts export and import back with the heap growing by far less than the export`, async () => {
  h = await startHarness();
  const source = await createContext(h.app, "large");
  const target = await createContext(h.app, "large-copy");
  await insertFacts(source.contextId);
  const server = h.app.listen(0);
  const { port } = server.address() as AddressInfo;
  try {
    const file = join(dir, "large.ndjson");
    const exportGrowth = await peakHeapGrowth(() => exportTo(port, source, file));
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(40 * 1024 * 1024);
    const importGrowth = await peakHeapGrowth(async () => {
      const res = await importFrom(port, target, createReadStream(file));
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body).counts.attribute).toEqual({ read: FACTS, created: FACTS });
    });
    console.log(`export ${size} bytes; heap growth: export ${exportGrowth}, import ${importGrowth}`);
    // Measured: ~2 MB exporting 42 MB; ~13 MB importing it (batches of ~256 KB of lines, a few in flight as rows, JSON
    // and query parameters). The bounds are generous and still well below the export.
    expect(exportGrowth).toBeLessThan(size / 4);
    expect(importGrowth).toBeLessThan(size / 2);
    expect(await h.api.db.attribute.count({ where: { contextId: target.contextId } })).toBe(FACTS);
    expect(await h.api.db.assertion.count({ where: { contextId: target.contextId, quote: { startsWith: "c4ca4238" } } })).toBe(1);
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await h.close();
    h = undefined;
  }
}, 300_000);

test("an import past RECALL_IMPORT_MAX_BYTES is 413 naming the body", async () => {
  h = await startHarness({ RECALL_IMPORT_MAX_BYTES: "4096" });
  const ctx = await createContext(h.app, "capped");
  const header = JSON.stringify({ kind: "header", format: "recall.context-export", version: 1, context_id: ctx.contextId });
  const session = (i: number) =>
    JSON.stringify({
      kind: "session",
      id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      metadata: {},
      created_at: "2026-01-01T00:00:00Z",
    });
  const body = [header, ...Array.from({ length: 200 }, (_, i) => session(i)), '{"kind":"end"}'].join("\n");
  const res = await request(h.app)
    .post(`/api/v1/${ctx.contextId}/import`)
    .set("API-KEY", ctx.apiKey)
    .set("Content-Type", "application/x-ndjson")
    .send(body);
  expect(res.status).toBe(413);
  expect(res.body.errors[0].field).toBe("body");
  // Sent chunked, with no length to refuse up front: the stream is cut at the cap.
  const server = h.app.listen(0);
  try {
    const chunked = await importFrom((server.address() as AddressInfo).port, ctx, Readable.from([body]));
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body).errors[0].field).toBe("body");
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}, 60_000);
