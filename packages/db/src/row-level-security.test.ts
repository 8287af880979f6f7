// Tenant isolation held by Postgres (docs/security.md): with row-level security on, a connection of the
// service sees a context's rows only inside withTenant(that context), none outside any scope, and every
// context's only inside withoutTenant. One pooled connection serves every case in turn, so a scope left
// behind on a reused connection would show here.
import { createTestDatabase, type TestDatabase } from "@recall/test-support";
import { BYPASS_ROLE, bypassCounts, bypassWithin, createDb, transaction, withTenant, withoutTenant, type Db } from "./index";

let database: TestDatabase;
let db: Db;
const contexts: Record<"a" | "b", string> = { a: "", b: "" };

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDb({ databaseUrl: database.url, poolMax: 1 });
  await withoutTenant("test-fixture", async () => {
    for (const name of ["a", "b"] as const) contexts[name] = await seedContext(db, name);
  });
});

afterAll(async () => {
  await db?.$disconnect();
  await database?.drop();
});

/** A context with a row in a table of each kind: own context_id, through a parent, keyed by scope. */
async function seedContext(db: Db, name: string): Promise<string> {
  const { id: contextId } = await db.context.create({ data: { name } });
  const session = await db.session.create({ data: { contextId } });
  await db.turn.create({ data: { contextId, sessionId: session.id, seq: 1, role: "user", content: `hello ${name}`, traceId: "t" } });
  const document = await db.document.create({ data: { contextId, text: `doc ${name}`, contentHash: name, traceId: "t" } });
  await db.documentNode.create({ data: { documentId: document.id, ordinal: 0, startByte: 0, endByte: 5, text: `doc ${name}` } });
  const item = await db.workItem.create({
    data: { contextId, queue: "extract_assertions", subjectType: "turn", subjectId: session.id, maxAttempts: 3, traceId: "t" },
  });
  await db.workAttempt.create({ data: { workItemId: item.id, attempt: 1, status: "running", startedAt: new Date() } });
  const webhook = await db.webhook.create({ data: { contextId, url: "https://example.com/", events: ["turn.done"], secret: "s" } });
  const event = await db.webhookEvent.create({ data: { contextId, type: "turn.done", data: {} } });
  await db.webhookDelivery.create({ data: { webhookId: webhook.id, eventId: event.id } });
  await db.idempotencyKey.create({
    data: { scope: `context:${contextId}`, key: name, fingerprint: "f", lockedUntil: new Date(), expiresAt: new Date(Date.now() + 60_000) },
  });
  return contextId;
}

/** Every table of the schema but Prisma's own bookkeeping. */
async function tables(): Promise<string[]> {
  const rows = await withoutTenant(
    "test-fixture",
    () =>
      db.$queryRaw<{ name: string }[]>`
      SELECT c.relname::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname <> '_prisma_migrations' ORDER BY 1`,
  );
  return rows.map((r) => r.name);
}

/** Rows per table, read in one transaction of the current scope. */
async function countsInScope(names: string[]): Promise<Record<string, number>> {
  return transaction(db, async (tx) => {
    const counts: Record<string, number> = {};
    for (const name of names) {
      const [row] = await tx.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM "${name}"`);
      counts[name] = Number(row!.n);
    }
    return counts;
  });
}

const SEEDED = ["contexts", "sessions", "turns", "documents", "document_nodes", "work_items", "work_attempts", "webhooks"];
const SEEDED_TOO = ["webhook_events", "webhook_deliveries", "idempotency_keys", "search_term_stats", "search_doc_stats"];

test("every table holds row-level security, forced, with a policy, and the service is a role it holds", async () => {
  const names = await tables();
  const rows = await withoutTenant(
    "test-fixture",
    () =>
      db.$queryRaw<{ name: string; enabled: boolean; forced: boolean; policies: bigint }[]>`
      SELECT c.relname::text AS name, c.relrowsecurity AS enabled, c.relforcerowsecurity AS forced,
        (SELECT count(*) FROM pg_policy p WHERE p.polrelid = c.oid) AS policies
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname <> '_prisma_migrations'`,
  );
  expect(rows.filter((r) => !r.enabled || !r.forced || Number(r.policies) === 0).map((r) => r.name)).toEqual([]);
  expect(rows).toHaveLength(names.length);
  const [role] = await db.$queryRaw<{ name: string; superuser: boolean; bypass: boolean }[]>`
    SELECT rolname::text AS name, rolsuper AS superuser, rolbypassrls AS bypass FROM pg_roles WHERE rolname = current_user`;
  expect(role).toEqual({ name: "recall_service", superuser: false, bypass: false });
});

test("a transaction without the context setting sees no row of any table", async () => {
  const names = await tables();
  const all = await withoutTenant("test-fixture", () => countsInScope(names));
  for (const name of [...SEEDED, ...SEEDED_TOO]) expect({ name, n: all[name]! > 0 }).toEqual({ name, n: true });
  const unscoped = await countsInScope(names);
  expect(Object.entries(unscoped).filter(([, n]) => n > 0)).toEqual([]);
});

test("inside withTenant(A), every table shows A's rows only", async () => {
  const names = await tables();
  const all = await withoutTenant("test-fixture", () => countsInScope(names));
  const ofA = await withTenant(contexts.a, () => countsInScope(names));
  const ofB = await withTenant(contexts.b, () => countsInScope(names));
  for (const name of SEEDED) {
    expect({ name, a: ofA[name]! > 0, b: ofB[name]! > 0 }).toEqual({ name, a: true, b: true });
    expect({ name, sum: ofA[name]! + ofB[name]! }).toEqual({ name, sum: all[name] });
  }
  const foreign = await withTenant(
    contexts.a,
    () =>
      db.$queryRaw<{ n: bigint }[]>`
      SELECT (SELECT count(*) FROM turns WHERE context_id <> ${contexts.a}::uuid)
           + (SELECT count(*) FROM contexts WHERE id <> ${contexts.a}::uuid)
           + (SELECT count(*) FROM document_nodes n JOIN documents d ON d.id = n.document_id WHERE d.context_id <> ${contexts.a}::uuid)
           + (SELECT count(*) FROM idempotency_keys WHERE scope <> ${`context:${contexts.a}`}) AS n`,
  );
  expect(Number(foreign[0]!.n)).toBe(0);
});

test("under A, a row naming B's context is refused, and B's rows can be neither changed nor deleted", async () => {
  const refused = withTenant(contexts.a, () => db.session.create({ data: { contextId: contexts.b } }));
  await expect(refused).rejects.toThrow(/row-level security/);
  const bSession = await withTenant(contexts.b, () => db.session.findFirstOrThrow());
  const moved = await withTenant(contexts.a, () => db.session.updateMany({ where: { id: bSession.id }, data: { metadata: { x: 1 } } }));
  expect(moved.count).toBe(0);
  const deleted = await withTenant(contexts.a, () => db.turn.deleteMany({ where: { contextId: contexts.b } }));
  expect(deleted.count).toBe(0);
  // Moving A's own row into B is refused too (WITH CHECK applies to updates).
  const aSession = await withTenant(contexts.a, () => db.session.findFirstOrThrow());
  const hijack = withTenant(contexts.a, () => db.session.update({ where: { id: aSession.id }, data: { contextId: contexts.b } }));
  await expect(hijack).rejects.toThrow(/row-level security/);
  expect(await withoutTenant("test-fixture", () => db.turn.count({ where: { contextId: contexts.b } }))).toBe(1);
});

test("withoutTenant sees every context's rows as a role that row-level security holds, and each entry is counted by its reason", async () => {
  const before = bypassCounts().get("test-fixture") ?? 0;
  const seen = await withoutTenant("test-fixture", () => db.context.findMany({ select: { id: true } }));
  expect(seen.map((c) => c.id).sort()).toEqual([contexts.a, contexts.b].sort());
  expect(bypassCounts().get("test-fixture")).toBe(before + 1);
  const [role] = await withoutTenant(
    "test-fixture",
    () => db.$queryRaw<{ name: string; superuser: boolean; bypass: boolean }[]>`
      SELECT rolname::text AS name, rolsuper AS superuser, rolbypassrls AS bypass FROM pg_roles WHERE rolname = current_user`,
  );
  expect(role).toEqual({ name: BYPASS_ROLE, superuser: false, bypass: false });
});

test("bypassWithin sees every context inside a tenant's transaction, then the transaction is the tenant's again", async () => {
  const [inside, after] = await withTenant(contexts.a, () =>
    transaction(db, async (tx) => {
      const seen = await bypassWithin(tx, "import-reference-check", () => tx.context.count());
      return [seen, await tx.context.count()];
    }),
  );
  expect([inside, after]).toEqual([2, 1]);
});

test("the service role's policy is checked once per statement, not on every row", async () => {
  const plan = await withTenant(contexts.a, () =>
    transaction(db, async (tx) => {
      await tx.$executeRaw`SET LOCAL enable_seqscan = off`;
      return tx.$queryRaw<{ "QUERY PLAN": string }[]>`
        EXPLAIN (COSTS OFF) SELECT count(*) FROM turns WHERE context_id = ${contexts.a}::uuid AND role = 'user'`;
    }),
  );
  const lines = plan.map((r) => r["QUERY PLAN"]);
  expect(lines.some((l) => /One-Time Filter: .*recall\.context_id/.test(l))).toBe(true);
  expect(lines.filter((l) => /^\s*Filter: .*recall\.context_id/.test(l))).toEqual([]);
});

test("full-text matching and enum equality may run before the policy, so their indexes still serve", async () => {
  const rows = await db.$queryRaw<{ name: string; leakproof: boolean }[]>`
    SELECT proname::text AS name, proleakproof AS leakproof FROM pg_proc
    WHERE oid IN ('pg_catalog.ts_match_vq(tsvector, tsquery)'::regprocedure, 'pg_catalog.enum_eq(anyenum, anyenum)'::regprocedure)
    ORDER BY 1`;
  expect(rows).toEqual([
    { name: "enum_eq", leakproof: true },
    { name: "ts_match_vq", leakproof: true },
  ]);
});
