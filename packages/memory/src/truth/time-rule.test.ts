// The time rule (time-rule.ts) as a table: each case posts statements of one speaker as
// turns, commits what each says through validation, commit and truth maintenance on real
// Postgres, then reads which value is current and when the others ended.
import { addTurn, attribute, ingest, eachTestInNewContext, type MemoryFixture } from "../testing/memory-fixture";

let f: MemoryFixture;
eachTestInNewContext((fixture) => (f = fixture));

const ALICE = ["org=acme", "user=alice"];
const at = (iso: string) => new Date(iso);

interface Statement {
  text: string;
  /** When it was said (the turn's occurred_at, or its arrival when `received` is not given). */
  said: string;
  /** Arrival, for imports of old conversations (later than `said`). */
  received?: string;
  key: string;
  value: string;
  from?: string;
  to?: string;
  /** Another session than the previous statement's. */
  newSession?: boolean;
}

interface Case {
  name: string;
  statements: Statement[];
  current: string | null;
  /** valid_to of each closed value. */
  closed: Record<string, string>;
  uncertain?: boolean;
}

const CASES: Case[] = [
  {
    name: "moved: a move dated before the earlier present-tense statement still closes it at the move",
    statements: [
      { text: "I live in Berlin.", said: "2025-03-10T09:00:00Z", key: "lives_in", value: "Berlin" },
      { text: "I moved to Paris last week.", said: "2025-03-10T09:00:05Z", key: "lives_in", value: "Paris", from: "2025-03-03T00:00:00Z" },
    ],
    current: "Paris",
    closed: { Berlin: "2025-03-03T00:00:00Z" },
  },
  {
    name: "started: a new role dated by its start",
    statements: [
      { text: "I'm a teacher.", said: "2025-01-10T09:00:00Z", key: "role", value: "teacher" },
      {
        text: "I started as principal in February.",
        said: "2025-03-01T09:00:00Z",
        key: "role",
        value: "principal",
        from: "2025-02-01T00:00:00Z",
      },
    ],
    current: "principal",
    closed: { teacher: "2025-02-01T00:00:00Z" },
  },
  {
    name: "left: the same value restated with a dated end closes the open one there",
    statements: [
      { text: "I work at Acme.", said: "2025-01-10T09:00:00Z", key: "employer", value: "Acme" },
      { text: "I left Acme in March.", said: "2025-04-02T09:00:00Z", key: "employer", value: "Acme", to: "2025-03-01T00:00:00Z" },
    ],
    current: null,
    closed: { Acme: "2025-03-01T00:00:00Z" },
  },
  {
    name: "since: a dated change closes the earlier value at its start",
    statements: [
      { text: "I'm CTO.", said: "2025-01-10T09:00:00Z", key: "role", value: "CTO" },
      { text: "Since February I'm VP.", said: "2025-03-05T09:00:00Z", key: "role", value: "VP", from: "2025-02-01T00:00:00Z" },
    ],
    current: "VP",
    closed: { CTO: "2025-02-01T00:00:00Z" },
  },
  {
    name: "until: a value that ends before the next one keeps its own end",
    statements: [
      { text: "I'm in Berlin until June.", said: "2025-01-10T09:00:00Z", key: "lives_in", value: "Berlin", to: "2025-06-01T00:00:00Z" },
      { text: "I live in Paris.", said: "2025-07-01T09:00:00Z", key: "lives_in", value: "Paris" },
    ],
    current: "Paris",
    closed: { Berlin: "2025-06-01T00:00:00Z" },
  },
  {
    name: "as of: a change dated ahead of when it is said closes the earlier value then",
    statements: [
      { text: "I'm CTO.", said: "2025-01-10T09:00:00Z", key: "role", value: "CTO" },
      { text: "As of May I'm CEO.", said: "2025-04-01T09:00:00Z", key: "role", value: "CEO", from: "2025-05-01T00:00:00Z" },
    ],
    current: "CEO",
    closed: { CTO: "2025-05-01T00:00:00Z" },
  },
  {
    name: "a plan stated first stays ahead of a later present-tense observation",
    statements: [
      { text: "I'm moving to Paris in June.", said: "2025-04-01T09:00:00Z", key: "lives_in", value: "Paris", from: "2025-06-01T00:00:00Z" },
      { text: "I live in Berlin.", said: "2025-05-01T09:00:00Z", key: "lives_in", value: "Berlin" },
    ],
    current: "Paris",
    closed: { Berlin: "2025-06-01T00:00:00Z" },
  },
  {
    name: "correction: the later undated statement wins from when it was said",
    statements: [
      { text: "I'm CTO.", said: "2025-03-10T09:00:00Z", key: "role", value: "CTO" },
      { text: "Actually, I'm VP.", said: "2025-03-10T09:00:05Z", key: "role", value: "VP" },
    ],
    current: "VP",
    closed: { CTO: "2025-03-10T09:00:05Z" },
  },
  {
    name: "same instant, two sessions: the later-recorded value is current and an uncertainty names both",
    statements: [
      { text: "I'm CTO.", said: "2025-03-10T09:00:00Z", received: "2025-06-01T00:00:00Z", key: "role", value: "CTO" },
      { text: "I'm VP.", said: "2025-03-10T09:00:00Z", received: "2025-06-01T00:00:01Z", key: "role", value: "VP", newSession: true },
    ],
    current: "VP",
    closed: { CTO: "2025-03-10T09:00:00Z" },
    uncertain: true,
  },
  {
    name: "out-of-order import: the move said later but imported first still wins",
    statements: [
      {
        text: "I moved to Paris.",
        said: "2025-02-01T09:00:00Z",
        received: "2025-06-01T00:00:00Z",
        key: "lives_in",
        value: "Paris",
        from: "2025-02-01T00:00:00Z",
      },
      {
        text: "I live in Berlin.",
        said: "2025-01-10T09:00:00Z",
        received: "2025-06-01T00:00:05Z",
        key: "lives_in",
        value: "Berlin",
        newSession: true,
      },
    ],
    current: "Paris",
    closed: { Berlin: "2025-02-01T00:00:00Z" },
  },
];

test.each(CASES)("$name", async (c) => {
  let sessionId: string | undefined;
  const uncertainties: string[] = [];
  for (const s of c.statements) {
    const imported = s.received !== undefined;
    const turn = await addTurn(f, {
      content: s.text,
      at: at(s.received ?? s.said),
      occurredAt: imported ? at(s.said) : undefined,
      scope: ALICE,
      sessionId: s.newSession ? undefined : sessionId,
    });
    sessionId = turn.sessionId;
    const extra = { ...(s.from ? { valid_from: s.from } : {}), ...(s.to ? { valid_to: s.to } : {}) };
    const report = await ingest(f, turn, { attributes: [attribute("Alice Chen", s.key, s.value, s.text.replace(/\.$/, ""), extra)] });
    uncertainties.push(...report.conflictUncertaintyIds);
  }
  const values = await f.db.attribute.findMany({ where: { contextId: f.contextId }, orderBy: { recordedAt: "asc" } });
  const current = values.filter((v) => v.validTo === null && v.supersededById === null).map((v) => v.value);
  expect(current).toEqual(c.current === null ? [] : [c.current]);
  for (const [value, end] of Object.entries(c.closed)) {
    const first = values.find((v) => v.value === value)!;
    expect({ value, validTo: first.validTo }).toEqual({ value, validTo: at(end) });
  }
  expect(uncertainties.length > 0).toBe(c.uncertain ?? false);
  if (c.uncertain) {
    const u = await f.db.uncertainty.findUniqueOrThrow({ where: { id: uncertainties[0]! } });
    expect(u.factIds.sort()).toEqual(values.map((v) => v.id).sort());
  }
});
