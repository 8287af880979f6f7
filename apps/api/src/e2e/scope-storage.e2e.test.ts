// What a scope costs in storage (issue 42, case 4): a scope is copied into every row a write makes (the turn, its
// entities, mentions, assertions and facts), so before the scope_entry cap one 5.76 MB turn grew the database by
// 119.7 MB. The same turns are sent unscoped and with the largest scope the caps allow; the difference in database
// growth, per byte of scope sent, is what a scope byte costs. The figures are in docs/limits.md.
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

/** Every table's size, indexes and TOAST included. */
async function databaseBytes(): Promise<number> {
  const [row] = await h.api.db.$queryRaw<{ bytes: bigint }[]>`
    SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind = 'r'`;
  return Number(row!.bytes);
}

/** The bytes the scope columns hold for one context, and how many rows hold a scope. */
async function scopeColumns(contextId: string): Promise<{ bytes: number; rows: number }> {
  const tables = await h.api.db.$queryRaw<{ table_name: string }[]>`
    SELECT table_name::text AS table_name FROM information_schema.columns
    WHERE table_schema = 'public' AND column_name = 'scope' AND data_type = 'ARRAY'`;
  let bytes = 0;
  let rows = 0;
  for (const { table_name } of tables) {
    const [r] = await h.api.db.$queryRawUnsafe<{ bytes: bigint | null; rows: bigint }[]>(
      `SELECT sum(pg_column_size(scope))::bigint AS bytes, count(*) FILTER (WHERE cardinality(scope) > 0) AS rows
       FROM "${table_name}" WHERE context_id = $1::uuid`,
      contextId,
    );
    bytes += Number(r?.bytes ?? 0);
    rows += Number(r?.rows ?? 0);
  }
  return { bytes, rows };
}

/** Sends the turns, waits until every stage of every one has finished, and answers the database's growth. */
async function growthOf(name: string, scope: string[]): Promise<{ grew: number; contextId: string }> {
  const ctx = await createContext(h.app, name);
  const api = contextClient(h.app, ctx);
  const session = await api.session();
  const before = await databaseBytes();
  for (let i = 0; i < TURNS; i++) {
    const person = `${FIRST[i % FIRST.length]} ${LAST[Math.floor(i / FIRST.length) % LAST.length]}`;
    await api.turn(session, `I'm ${person}, CTO at Acme${i}.`, scope);
  }
  const unfinished = () =>
    h.api.db.workItem.findMany({
      where: { contextId: ctx.contextId, status: { notIn: ["succeeded", "failed", "dead", "cancelled"] } },
      select: { queue: true, status: true },
    });
  let left: unknown[] = [];
  await waitFor(async () => (left = await unfinished()).length === 0, {
    what: () => `every stage of every turn (left: ${JSON.stringify(left.slice(0, 5))})`,
    timeoutMs: 120_000,
  });
  return { grew: (await databaseBytes()) - before, contextId: ctx.contextId };
}

test("a byte of scope is stored once per row that carries it, and never more", async () => {
  const scope = maximalScope();
  const scopeBytesSent = TURNS * Buffer.byteLength(JSON.stringify(scope));
  const unscoped = await growthOf("unscoped", []);
  const scoped = await growthOf("scoped", scope);
  const columns = await scopeColumns(scoped.contextId);
  const figures = {
    scopeBytesSent,
    rowsWithScopePerTurn: columns.rows / TURNS,
    columnBytesPerScopeByte: columns.bytes / scopeBytesSent,
    growthPerScopeByte: (scoped.grew - unscoped.grew) / scopeBytesSent,
    growthPerScopedTurn: scoped.grew / TURNS,
    growthPerUnscopedTurn: unscoped.grew / TURNS,
  };
  // Each row holds the scope once (pg_column_size, TOAST compressed when it pays), so the column bytes per scope byte
  // sent are the rows per turn at most; the database grows by little more (pages, TOAST chunk headers).
  // On failure the figures are all shown (2026-12-07: 5.4 rows a turn, 5.43 column bytes and 4.37 bytes of growth per
  // scope byte sent; 62.7 KB a scoped turn against 26.4 KB unscoped).
  expect({ ...figures, columns: figures.columnBytesPerScopeByte <= figures.rowsWithScopePerTurn * 1.05 }).toMatchObject({ columns: true });
  expect({ ...figures, growth: figures.growthPerScopeByte <= figures.rowsWithScopePerTurn * 1.5 }).toMatchObject({ growth: true });
}, 300_000);
