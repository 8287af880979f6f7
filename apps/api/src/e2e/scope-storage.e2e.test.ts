// What a scope costs in storage (issue 42, case 4). Before the scope_entry cap one 5.76 MB turn grew the database by
// 119.7 MB, because every row a write made (the turn, its entities, mentions, assertions, facts, embeddings) carried
// a copy of the scope: 4.4 bytes stored per byte sent even within the caps. Now a context keeps each distinct scope
// once (scope_sets, core/scope-sets.ts of @recall/memory) and rows name it by id. The same turns are sent unscoped and
// with the largest scope the caps allow, once with one scope for all (a user's or an org's, the usual case) and once
// with a new scope on every turn (the worst case); the difference in database growth, per byte of scope sent, is what
// a scope byte costs. The figures are in docs/limits.md and docs/performance.md.
import { randomBytes } from "node:crypto";
import { WRITE_CAPS } from "@recall/contracts";
import { waitFor } from "@recall/test-support";
import { contextClient, createContext } from "../testing/api-client";
import { startHarness, type Harness } from "../testing/harness";

const TURNS = 40;
const FIRST = ["Alice", "Bruno", "Chen", "Dana", "Elif", "Femi", "Greta", "Hugo"];
const LAST = ["Moreau", "Tanaka", "Okafor", "Silva", "Novak"];

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h?.close();
});

/** The largest scope the caps allow: every entry at the entry cap, as random (so incompressible) as a real id. */
function maximalScope(): string[] {
  return Array.from({ length: WRITE_CAPS.scope_entries }, (_, i) => {
    const key = `k${String(i).padStart(2, "0")}`;
    const value = randomBytes(WRITE_CAPS.scope_entry).toString("base64url");
    return `${key}=${value}`.slice(0, WRITE_CAPS.scope_entry);
  });
}

/**
 * The bytes a context's rows take, in every table with a context_id: each row as stored (pg_column_size of the whole
 * row, its TOASTed values included as stored, compressed or not). Page-level growth of the database is too coarse to
 * compare runs of 40 turns: pages a run leaves half full are filled by the next, and vacuum adds maps to tables.
 */
async function contextBytes(contextId: string): Promise<number> {
  const tables = await h.api.db.$queryRaw<{ table_name: string }[]>`
    SELECT table_name::text AS table_name FROM information_schema.columns
    WHERE table_schema = 'public' AND column_name = 'context_id' AND table_name NOT IN ('contexts')`;
  let bytes = 0;
  for (const { table_name } of tables) {
    const [r] = await h.api.db.$queryRawUnsafe<{ bytes: bigint | null }[]>(
      `SELECT sum(pg_column_size(t.*))::bigint AS bytes FROM "${table_name}" t WHERE context_id = $1::uuid`,
      contextId,
    );
    bytes += Number(r?.bytes ?? 0);
  }
  return bytes;
}

/** The bytes the context's scope sets hold, and how many rows name one. */
async function scopeStorage(contextId: string): Promise<{ setBytes: number; sets: number; namingRows: number }> {
  const [sets] = await h.api.db.$queryRaw<{ bytes: bigint | null; sets: bigint }[]>`
    SELECT sum(pg_column_size(s.*))::bigint AS bytes, count(*) AS sets FROM scope_sets s WHERE context_id = ${contextId}::uuid`;
  const tables = await h.api.db.$queryRaw<{ table_name: string }[]>`
    SELECT table_name::text AS table_name FROM information_schema.columns
    WHERE table_schema = 'public' AND column_name = 'scope_set_id'`;
  let namingRows = 0;
  for (const { table_name } of tables) {
    const [r] = await h.api.db.$queryRawUnsafe<{ rows: bigint }[]>(
      `SELECT count(*) FILTER (WHERE scope_set_id IS NOT NULL) AS rows FROM "${table_name}" WHERE context_id = $1::uuid`,
      contextId,
    );
    namingRows += Number(r?.rows ?? 0);
  }
  return { setBytes: Number(sets?.bytes ?? 0), sets: Number(sets?.sets ?? 0), namingRows };
}

/** Sends the turns, waits until every stage of every one has finished, and answers the bytes the context's rows take. */
async function storedFor(name: string, scopeOf: (turn: number) => string[]): Promise<{ stored: number; contextId: string; sent: number }> {
  const ctx = await createContext(h.app, name);
  const api = contextClient(h.app, ctx);
  const session = await api.session();
  let sent = 0;
  for (let i = 0; i < TURNS; i++) {
    const person = `${FIRST[i % FIRST.length]} ${LAST[Math.floor(i / FIRST.length) % LAST.length]}`;
    const scope = scopeOf(i);
    sent += scope.length === 0 ? 0 : Buffer.byteLength(JSON.stringify(scope));
    await api.turn(session, `I'm ${person}, CTO at Acme${i}.`, scope);
  }
  const unfinished = () =>
    h.api.db.workItem.findMany({
      where: { contextId: ctx.contextId, status: { notIn: ["succeeded", "awaiting_model", "failed", "dead", "cancelled"] } },
      select: { queue: true, status: true },
    });
  let left: unknown[] = [];
  await waitFor(async () => (left = await unfinished()).length === 0, {
    what: () => `every stage of every turn (left: ${JSON.stringify(left.slice(0, 5))})`,
    timeoutMs: 120_000,
  });
  return { stored: await contextBytes(ctx.contextId), contextId: ctx.contextId, sent };
}

test("a scope is stored once per context: a byte of scope sent costs at most 1.5 bytes, however many rows it covers", async () => {
  const unscoped = await storedFor("unscoped", () => []);
  const shared = maximalScope();
  const oneScope = await storedFor("one scope", () => shared);
  const newScopes = await storedFor("a new scope each turn", () => maximalScope());
  const figures = Object.fromEntries(
    await Promise.all(
      [
        ["oneScope", oneScope],
        ["newScopes", newScopes],
      ].map(async ([name, run]) => {
        const r = run as typeof oneScope;
        const storage = await scopeStorage(r.contextId);
        return [
          name,
          {
            scopeBytesSent: r.sent,
            sets: storage.sets,
            namingRowsPerTurn: storage.namingRows / TURNS,
            setBytesPerScopeByte: storage.setBytes / r.sent,
            storedPerScopeByte: (r.stored - unscoped.stored) / r.sent,
            storedPerScopedTurn: r.stored / TURNS,
            storedPerUnscopedTurn: unscoped.stored / TURNS,
          },
        ];
      }),
    ),
  ) as Record<
    "oneScope" | "newScopes",
    { sets: number; namingRowsPerTurn: number; setBytesPerScopeByte: number; storedPerScopeByte: number }
  >;
  // On failure every figure is shown. 2026-12-07, before scope sets: 5.4 rows a turn each held a copy, 4.37 bytes of
  // database growth per scope byte sent. After: see docs/performance.md.
  expect({ ...figures, sets: [figures.oneScope.sets, figures.newScopes.sets] }).toMatchObject({ sets: [1, TURNS] });
  // Rows still name their scope (the turn, its entity, mention, assertion, fact): the rule reads it from the set.
  expect({ ...figures, named: figures.oneScope.namingRowsPerTurn >= 4 }).toMatchObject({ named: true });
  // A set holds its entries once (TOAST may compress them, random ones barely).
  expect({ ...figures, once: figures.newScopes.setBytesPerScopeByte <= 1.05 }).toMatchObject({ once: true });
  expect({ ...figures, shared: figures.oneScope.storedPerScopeByte <= 1.5 }).toMatchObject({ shared: true });
  expect({ ...figures, worst: figures.newScopes.storedPerScopeByte <= 1.5 }).toMatchObject({ worst: true });
}, 600_000);
