// Importing an export: the round trip, which targets take it, the lines it refuses, and ids naming rows the caller's
// context may not name (another context's, or an input it erased).
import { createHash, randomUUID } from "node:crypto";
import { pipelineRecords } from "@recall/pipeline";
import { eachTestInNewContext, exportLines, newContext, sampleMemory, type MemoryFixture } from "../testing/memory-fixture";
import { EXPORT_FORMAT, KIND_BY_NAME } from "./export-format";
import { importContext } from "./import";
import { remapper, uuidV8, type ImportKey } from "./import-ids";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

const at = new Date(Date.UTC(2025, 0, 1, 9));
type Line = Record<string, unknown>;

async function* feed(lines: readonly (Line | string)[]) {
  for (const line of lines) yield typeof line === "string" ? line : JSON.stringify(line);
}

const importInto = (contextId: string, lines: readonly (Line | string)[]) => importContext(f.db, contextId, feed(lines), pipelineRecords);

/** The rows of an export as comparable text, header and end line left out. */
const rows = (lines: Line[]) =>
  lines
    .slice(1, -1)
    .map((l) => JSON.stringify(l))
    .sort();

/** The key of the import of `source`'s export into `target` (its record's id, once an import of it ran). */
async function keyOf(source: string, target: string): Promise<ImportKey> {
  const record = await f.db.contextImport.findUniqueOrThrow({
    where: { contextId_sourceContextId: { contextId: target, sourceContextId: source } },
  });
  return { sourceContextId: source, targetContextId: target, secret: record.id };
}

/** An exported row with its ids rewritten by `remap` (the header and end line as they are). */
function remapped(line: Line, remap: (id: string) => string): Line {
  const spec = KIND_BY_NAME.get(line.kind as string);
  if (!spec) return line;
  const out = { ...line };
  for (const column of spec.ids) if (typeof out[column] === "string") out[column] = remap(out[column]);
  for (const column of spec.idLists ?? []) if (Array.isArray(out[column])) out[column] = (out[column] as string[]).map(remap);
  return out;
}

/** A refused line as the importer names it: its number, the field, and a fragment of why. */
const refusal = (line: number, field: string, why: RegExp) => ({ line, field, message: expect.stringMatching(why) });

const header = (contextId: string, extra: Line = {}) => ({
  kind: "header",
  format: EXPORT_FORMAT,
  version: 1,
  context_id: contextId,
  ...extra,
});
const END = { kind: "end" };

test("into an empty context every row comes over with its ids rewritten; a second run creates nothing", async () => {
  await sampleMemory(f, at);
  const exported = await exportLines(f);
  const target = await newContext(f.db);

  const report = await importInto(
    target.contextId,
    exported.map((l) => JSON.stringify(l)),
  );

  expect(report).toMatchObject({ sourceContextId: f.contextId, lines: exported.length });
  const end = exported[exported.length - 1] as { counts: Record<string, number> };
  for (const [kind, n] of Object.entries(end.counts)) {
    if (n > 0) expect([kind, report.counts[kind]]).toEqual([kind, { read: n, created: n }]);
  }
  const reexported = await exportLines(target);
  const key = await keyOf(f.contextId, target.contextId);
  expect(rows(reexported)).toEqual(rows(exported.map((l) => remapped(l, remapper(key)))));

  const again = await importInto(target.contextId, exported);
  expect(Object.values(again.counts).every((c) => c.created === 0 && c.read > 0)).toBe(true);
  expect(rows(await exportLines(target))).toEqual(rows(reexported));
  expect(await f.db.contextImport.findFirstOrThrow({ where: { contextId: target.contextId } })).toMatchObject({
    sourceContextId: f.contextId,
    runs: 2,
    finishedAt: expect.any(Date),
  });
});

test("into its own context the ids of rows it holds are kept: what is there stays, what is missing comes back", async () => {
  await sampleMemory(f, at);
  const exported = await exportLines(f);
  const retraction = await f.db.retraction.findFirstOrThrow({ where: { contextId: f.contextId } });
  await f.db.retraction.delete({ where: { id: retraction.id } });

  const report = await importInto(f.contextId, exported);

  expect(report.counts.retraction).toEqual({ read: 1, created: 1 });
  expect(Object.entries(report.counts).filter(([, c]) => c.created > 0)).toEqual([["retraction", { read: 1, created: 1 }]]);
  // Under a new id (an id the context does not hold is rewritten), naming the source it named.
  const key = await keyOf(f.contextId, f.contextId);
  expect(await f.db.retraction.findUnique({ where: { id: remapper(key)(retraction.id) } })).toMatchObject({
    reason: retraction.reason,
    sourceId: retraction.sourceId,
  });
  const again = await importInto(f.contextId, exported);
  expect(Object.values(again.counts).every((c) => c.created === 0)).toBe(true);
});

describe("a target", () => {
  test("holding inputs or memory takes no other context's export", async () => {
    await sampleMemory(f, at);
    const target = await newContext(f.db);
    await f.db.session.create({ data: { contextId: target.contextId } });

    await expect(importInto(target.contextId, await exportLines(f))).rejects.toThrow(/already holds inputs or memory/);
    expect(await f.db.contextImport.count({ where: { contextId: target.contextId } })).toBe(0);
  });

  test("that took one context's export takes no other's", async () => {
    const target = await newContext(f.db);
    const first = randomUUID();
    await importInto(target.contextId, [header(first), END]);

    await expect(importInto(target.contextId, [header(randomUUID()), END])).rejects.toThrow(
      new RegExp(`already holds an import of context ${first}`),
    );
    await expect(importInto(target.contextId, [header(first), END])).resolves.toMatchObject({ sourceContextId: first });
  });
});

describe("a bad line is refused, naming its line and field", () => {
  const SOURCE = randomUUID();
  const session = (extra: Line = {}) => ({ kind: "session", id: randomUUID(), metadata: {}, created_at: at.toISOString(), ...extra });
  const deep = `{"kind":"session","id":"${randomUUID()}","metadata":${"[".repeat(70)}${"]".repeat(70)}}`;

  test.each<[string, (Line | string)[], ReturnType<typeof refusal>]>([
    ["an empty body", [], refusal(1, "line", /the body is empty/)],
    ["a first line that is not the header", [session()], refusal(1, "kind", /the first line must be the header/)],
    ["another format", [header(SOURCE, { format: "csv" }), END], refusal(1, "format", /must be "recall.context-export"/)],
    ["another version", [header(SOURCE, { version: 2 }), END], refusal(1, "version", /unknown format version 2/)],
    ["a header without the context's id", [header("acme"), END], refusal(1, "context_id", /must be the exported context's id/)],
    ["a line that is not JSON", [header(SOURCE), "{kind:", END], refusal(2, "line", /not JSON/)],
    ["a line that is not an object", [header(SOURCE), "[1]", END], refusal(2, "line", /must be a JSON object/)],
    ["nesting too deep", [header(SOURCE), deep, END], refusal(2, "line", /nests objects or arrays deeper than 64 levels/)],
    ["an unknown kind", [header(SOURCE), { kind: "widget" }, END], refusal(2, "kind", /unknown kind "widget"/)],
    [
      "kinds out of order",
      [header(SOURCE), session(), { kind: "entity", id: randomUUID() }, session(), END],
      refusal(4, "kind", /a session after a entity/),
    ],
    ["a field its kind has not", [header(SOURCE), session({ colour: "red" }), END], refusal(2, "colour", /not a field of a session line/)],
    ["a line without an id", [header(SOURCE), session({ id: undefined }), END], refusal(2, "id", /required/)],
    ["an id that is not a uuid", [header(SOURCE), session({ id: "42" }), END], refusal(2, "id", /must be a uuid or null/)],
    [
      "a reference that is not a uuid",
      [header(SOURCE), { kind: "turn", id: randomUUID(), session_id: 7 }, END],
      refusal(2, "session_id", /must be a uuid/),
    ],
    [
      "a value its column does not take",
      [header(SOURCE), { kind: "review", id: randomUUID(), status: "maybe" }, END],
      refusal(2, "status", /must be one of pending, approved/),
    ],
    ...["!!!", "???", "\u200b"].map((name): [string, Line[], ReturnType<typeof refusal>] => [
      `an entity named ${JSON.stringify(name)}, with no letter or digit`,
      [header(SOURCE), { kind: "entity", id: randomUUID(), name, identity_key: "", type: "person" }, END],
      refusal(2, "name", /must contain a letter or digit/),
    ]),
    [
      "an id list that is not one",
      [header(SOURCE), { kind: "uncertainty", id: randomUUID(), fact_ids: "x" }, END],
      refusal(2, "fact_ids", /must be a list of uuids/),
    ],
    [
      "a row the database refuses",
      [header(SOURCE), session({ created_at: "soon" }), END],
      refusal(2, "session", /lines 2–2 \(session\) refused by the database/),
    ],
    ["a line after the end line", [header(SOURCE), END, "", session()], refusal(4, "kind", /a line after the end line/)],
    ["an export without its end line", [header(SOURCE), session()], refusal(3, "kind", /the export ends without its end line/)],
  ])("%s", async (_name, lines, refused) => {
    const target = await newContext(f.db);
    await expect(importInto(target.contextId, lines)).rejects.toMatchObject(refused);
  });

  test("what came before a refused batch stays; the refused batch writes nothing", async () => {
    const target = await newContext(f.db);
    const kept = session();
    const turn = { kind: "turn", id: randomUUID(), session_id: kept.id, seq: 1, role: "user", content: null };
    await expect(importInto(target.contextId, [header(SOURCE), kept, turn, END])).rejects.toMatchObject(
      refusal(3, "turn", /refused by the database/),
    );
    expect(await f.db.session.count({ where: { contextId: target.contextId } })).toBe(1);
    expect(await f.db.turn.count({ where: { contextId: target.contextId } })).toBe(0);
  });
});

describe("ids the caller's context may not name", () => {
  test("another context's row, as a line's own id or as a reference, is answered as an id of no row; it is unchanged", async () => {
    const other = await newContext(f.db);
    const theirs = await f.db.session.create({ data: { contextId: other.contextId, metadata: { owner: "other" } } });
    // The header claims the target's own export: ids of rows the target holds would be kept.
    const own = header(f.contextId);
    const session = (id: string) => ({ kind: "session", id, metadata: {}, created_at: at.toISOString() });
    const turn = (sessionId: string) => ({
      kind: "turn",
      id: randomUUID(),
      session_id: sessionId,
      seq: 1,
      role: "user",
      content: "hi",
      scope: [],
      trace_id: "t",
      created_at: at.toISOString(),
    });
    const answer = (run: Promise<unknown>) =>
      run.then(
        (report) => ({ report }),
        (err: Error & { field?: string }) => ({ field: err.field, message: err.message.replace(/[0-9a-f-]{36}/g, "<id>") }),
      );

    const nobodys = randomUUID();
    for (const line of [session, turn]) {
      const foreign = await answer(importInto(f.contextId, [own, line(theirs.id), END]));
      const unknown = await answer(importInto(f.contextId, [own, line(nobodys), END]));
      expect([line.name, foreign]).toEqual([line.name, unknown]);
    }

    // Each became a session of this context under an id of its own, with its turn; the other context has no turn.
    expect(await f.db.session.findUniqueOrThrow({ where: { id: theirs.id } })).toEqual(theirs);
    expect(await f.db.session.count({ where: { contextId: f.contextId, id: { notIn: [theirs.id, nobodys] } } })).toBe(2);
    expect(await f.db.turn.count({ where: { contextId: f.contextId } })).toBe(2);
    expect(await f.db.turn.count({ where: { contextId: other.contextId } })).toBe(0);
  });

  test("the ids another context's import of a shared export will get cannot be planted first", async () => {
    await sampleMemory(f, at);
    const exported = await exportLines(f);
    const [squatter, victim] = [await newContext(f.db), await newContext(f.db)];
    // What the squatter could compute of the victim's ids before: sha256 of the target and the exported id.
    const predicted = (id: string) => uuidV8(createHash("sha256").update(`${victim.contextId}:${id}`).digest("hex"));
    const planted = exported.map((l) => (l.kind === "header" ? header(squatter.contextId) : remapped(l, predicted)));
    await importInto(squatter.contextId, planted);

    const report = await importInto(victim.contextId, exported);

    for (const [kind, c] of Object.entries(report.counts)) expect([kind, c.created]).toEqual([kind, c.read]);
    const squatted = await f.db.session.findMany({ where: { contextId: squatter.contextId }, select: { id: true } });
    const victims = await f.db.session.findMany({ where: { contextId: victim.contextId }, select: { id: true } });
    expect(squatted.length).toBeGreaterThan(0);
    expect(victims.filter((v) => squatted.some((s) => s.id === v.id))).toEqual([]);
  });

  test("the same ids in another context's export are rewritten, so they name nothing of the other context", async () => {
    const other = await newContext(f.db);
    const theirs = await f.db.session.create({ data: { contextId: other.contextId } });
    const session = { kind: "session", id: theirs.id, metadata: {}, created_at: at.toISOString() };

    await importInto(f.contextId, [header(randomUUID()), session, END]);

    const [mine] = await f.db.session.findMany({ where: { contextId: f.contextId } });
    expect(mine!.id).not.toBe(theirs.id);
  });

  test("an input this context erased is refused, with the erasure, wherever the line names it", async () => {
    const { promoted } = await sampleMemory(f, at);
    const exported = await exportLines(f);
    const erasure = await f.db.erasure.create({
      data: { contextId: f.contextId, kind: "inputs", request: {}, erased: {}, counts: {}, hash: "0" },
    });
    await f.db.erasedInput.create({ data: { inputId: promoted.id, contextId: f.contextId, kind: "turn", erasureId: erasure.id } });
    await f.db.turn.delete({ where: { id: promoted.id } });
    const line = exported.findIndex((l) => l.kind === "turn" && l.id === promoted.id) + 1;

    await expect(importInto(f.contextId, exported)).rejects.toMatchObject(
      refusal(line, "id", new RegExp(`names an input erased from this context \\(erasure ${erasure.id}\\)`)),
    );
    const candidate = exported.findIndex((l) => l.kind === "candidate" && l.turn_id === promoted.id);
    const withoutTurn = exported.filter((l) => !(l.kind === "turn" && l.id === promoted.id));
    await expect(importInto(f.contextId, withoutTurn)).rejects.toMatchObject(refusal(candidate, "subject_id", /names an input erased/));
    expect(await f.db.turn.findUnique({ where: { id: promoted.id } })).toBeNull();
  });
});
