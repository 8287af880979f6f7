// fast-check arbitraries for hostile HTTP requests to a declared route: bad ids in the path, odd
// query strings, and bodies that are mutated, mistyped, deeply nested, oversized, not UTF-8, cut
// off, carry NUL characters, lone UTF-16 surrogates or huge scope lists, and cursors forged to
// decode well; with credentials right, wrong or missing.
import fc from "fast-check";

export interface FuzzTarget {
  method: string;
  /** OpenAPI spelling, `{param}` for path parameters. */
  path: string;
  auth: "none" | "admin" | "api_key";
  hasBody: boolean;
  /** API routes answer errors as problem+json; the MCP endpoint and dashboard speak their own protocols. */
  problemJson: boolean;
}

export interface FuzzIds {
  contextId: string;
  apiKey: string;
  otherContextId: string;
  otherApiKey: string;
  /** A context of its own for the admin erasure of a whole context and config changes (which would otherwise hit the fuzz's). */
  doomedContextId: string;
  adminKey: string;
  /** A real id per path parameter name (sessionId, documentId, …). */
  byParam: Record<string, string>;
}

export interface FuzzRequest {
  target: FuzzTarget;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  label: string;
}

interface BodyCase {
  bytes?: Buffer;
  contentType?: string;
  extraHeaders?: Record<string, string>;
  label: string;
}

type Json = Record<string, unknown>;

/** A well-formed body per route, the seed every mutation starts from. */
export const SAMPLES: Record<string, Json> = {
  "POST /api/v1/contexts": { name: "acme" },
  "POST /api/v1/{contextId}/sessions": { metadata: { channel: "web", user: { name: "Alice" } } },
  "POST /api/v1/{contextId}/sessions/{sessionId}/turns/batch": {
    turns: [{ role: "user", content: "I'm Alice.", name: "Alice", scope: ["org=acme"] }],
  },
  "POST /api/v1/contexts/{contextId}/keys/{keyId}/rotate": { keep_old: true },
  "POST /api/v1/{contextId}/documents": { text: "Alice is the CTO of Acme.", scope: ["org=acme"], metadata: { domain: "x" } },
  "POST /api/v1/{contextId}/sessions/{sessionId}/turns": {
    role: "user",
    content: "I'm Alice, CTO at Acme.",
    name: "Alice",
    scope: ["org=acme"],
  },
  "POST /api/v1/{contextId}/query": { query: "alice", scope: ["org=acme"], limit: 5 },
  "POST /api/v1/{contextId}/state": { scope: ["org=acme"], as_of: "2025-01-01T00:00:00Z" },
  "POST /api/v1/{contextId}/facts": {
    scope: ["org=acme"],
    attributes: [{ entity: "Alice", key: "role", value: "CTO", memory_category: "identity" }],
  },
  "POST /api/v1/{contextId}/mcp": { jsonrpc: "2.0", id: 1, method: "tools/list" },
  "POST /api/v1/admin/mcp": { jsonrpc: "2.0", id: 1, method: "tools/list" },
};
const RETRACT = { reason: "wrong" };

const printable = (max: number) =>
  fc.array(fc.integer({ min: 0x20, max: 0x7e }), { maxLength: max }).map((cs) => String.fromCharCode(...cs));
const anyText = (max: number) => fc.string({ unit: "binary", maxLength: max });

export function arbitraryRequest(targets: FuzzTarget[], ids: FuzzIds, bodyLimit: number): fc.Arbitrary<FuzzRequest> {
  // Routes that take input get most of the runs; a health probe has only a query string to get wrong.
  const weighted = targets.map((target) => ({
    weight: target.hasBody ? 6 : target.path.includes("{") ? 3 : 1,
    arbitrary: fc.constant(target),
  }));
  return fc.oneof(...weighted).chain((target) =>
    fc
      .record({
        method: fc.oneof({ weight: 19, arbitrary: fc.constant(target.method) }, fc.constantFrom("PUT", "PATCH", "DELETE", "GET")),
        path: pathArb(target, ids),
        query: queryArb(),
        body: target.hasBody ? bodyArb(target, bodyLimit) : fc.constant<BodyCase>({ label: "no body" }),
        auth: authArb(target, ids),
        idempotency: fc.option(printable(300), { freq: 8 }),
      })
      .map(({ method, path, query, body, auth, idempotency }) => ({
        target,
        method,
        path: `${path}${query}`,
        headers: {
          ...auth,
          ...(body.contentType ? { "content-type": body.contentType } : {}),
          ...body.extraHeaders,
          ...(idempotency !== null ? { "idempotency-key": idempotency } : {}),
        },
        body: body.bytes,
        label: body.label,
      })),
  );
}

function pathArb(target: FuzzTarget, fuzzIds: FuzzIds): fc.Arbitrary<string> {
  // The admin routes that erase a context or change its rules (a review or require_scope rule would change what
  // the fuzz's later writes do) are aimed at a context of their own, never at the other context either: what the
  // run stored there (a session its own key created) must still be there afterwards.
  const changesContext = /^\/api\/v1\/contexts\/\{contextId\}\/(erasure|config)$/.test(target.path);
  const ids = changesContext ? { ...fuzzIds, contextId: fuzzIds.doomedContextId, otherContextId: fuzzIds.doomedContextId } : fuzzIds;
  const names = [...target.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  return fc.tuple(...names.map((name) => paramArb(name, ids))).map((values) => {
    let path = target.path;
    names.forEach((name, i) => (path = path.replace(`{${name}}`, values[i]!)));
    return path;
  });
}

function paramArb(name: string, ids: FuzzIds): fc.Arbitrary<string> {
  const real = name === "contextId" ? ids.contextId : (ids.byParam[name] ?? crypto.randomUUID());
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(real) },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.constant(name === "contextId" ? ids.otherContextId : real.toUpperCase()) },
    {
      weight: 2,
      arbitrary: anyText(40)
        .filter((s) => s.length > 0)
        .map(encodeURIComponent),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "%00",
        "%E0%A4%A",
        "%ZZ",
        "%FF%FE",
        "..",
        "%2F..%2F",
        "00000000-0000-0000-0000-000000000000",
        "x".repeat(3_000),
        "%20",
        "-1",
        "0",
      ),
    },
  );
}

/**
 * Cursors that decode to the shape the API writes but were never issued: a number where a list
 * is ordered by time and the reverse, timestamps Postgres cannot hold or the API never writes,
 * sequence numbers past int4.
 */
export const FORGED_CURSORS = [
  { k: 5, id: "00000000-0000-0000-0000-000000000000" },
  { k: 2 ** 40, id: "00000000-0000-4000-8000-000000000000" },
  { k: -1, id: "00000000-0000-4000-8000-000000000000" },
  { k: "2025-01-01T00:00:00Z", id: "00000000-0000-4000-8000-000000000000" },
  { k: "0000-01-01T00:00:00.000Z", id: "00000000-0000-4000-8000-000000000000" },
  { k: "2025-01-01", id: "00000000-0000-4000-8000-000000000000" },
  { k: "+275760-09-13T00:00:00.000Z", id: "00000000-0000-4000-8000-000000000000" },
  { k: "-271821-04-20T00:00:00.000Z", id: "00000000-0000-4000-8000-000000000000" },
  { k: "2025-13-45T99:99:99.999Z", id: "00000000-0000-4000-8000-000000000000" },
  { k: "x", id: "not-a-uuid" },
  { k: 1.5, id: "00000000-0000-4000-8000-000000000000" },
].map((position) => Buffer.from(JSON.stringify(position)).toString("base64url"));

const QUERY_KEYS = [
  "scope[org]",
  "scope[user]",
  "scope",
  "scope[]",
  "scope[a][b][c][d][e][f]",
  "limit",
  "cursor",
  "status",
  "kinds",
  "q",
  "x",
];

function queryArb(): fc.Arbitrary<string> {
  const value = fc.oneof(
    anyText(30).map(encodeURIComponent),
    fc.constantFrom("%00", "-1", "0", "1e309", "NaN", "acme", "org=acme", "a=b=c", "%FF", "", "%E0%A4%A", "x".repeat(2_000)),
    fc.constantFrom(...FORGED_CURSORS),
  );
  const pair = fc.tuple(fc.constantFrom(...QUERY_KEYS), value).map(([k, v]) => `${k}=${v}`);
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant("") },
    { weight: 4, arbitrary: fc.array(pair, { minLength: 1, maxLength: 6 }).map((ps) => `?${ps.join("&")}`) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 33, max: 3_000 }).map((n) => `?${Array.from({ length: n }, (_, i) => `scope[k${i}]=v${i}`).join("&")}`),
    },
  );
}

function authArb(target: FuzzTarget, ids: FuzzIds): fc.Arbitrary<Record<string, string>> {
  if (target.auth === "none") return fc.constant({});
  const garbage = printable(80).map((g) => ({ [target.auth === "admin" ? "authorization" : "api-key"]: g }));
  if (target.auth === "admin") {
    const valid = target.path.startsWith("/admin/")
      ? `Basic ${Buffer.from(`ops:${ids.adminKey}`).toString("base64")}`
      : `Bearer ${ids.adminKey}`;
    return fc.oneof(
      { weight: 12, arbitrary: fc.constant({ authorization: valid }) },
      fc.constant({}),
      fc.constant({ authorization: "Bearer wrong" }),
      garbage,
    );
  }
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant({ "api-key": ids.apiKey }) },
    fc.constant({}),
    fc.constant({ "api-key": ids.otherApiKey }),
    fc.constant({ "api-key": `${ids.apiKey.slice(0, -4)}AAAA` }),
    garbage,
  );
}

function sampleFor(target: FuzzTarget): Json {
  if (target.path.endsWith("/retract")) return RETRACT;
  return SAMPLES[`${target.method} ${target.path}`] ?? {};
}

const json = (value: unknown, label: string): BodyCase => ({
  bytes: Buffer.from(JSON.stringify(value) ?? "null"),
  contentType: "application/json",
  label,
});

function bodyArb(target: FuzzTarget, bodyLimit: number): fc.Arbitrary<BodyCase> {
  const sample = sampleFor(target);
  return fc.oneof(
    { weight: 6, arbitrary: mutated(sample) },
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => json(v, "arbitrary JSON")) },
    { weight: 1, arbitrary: fc.constant(json(sample, "well-formed")) },
    { weight: 1, arbitrary: fc.integer({ min: 65, max: 10_000 }).map((n) => deeplyNested(sample, n)) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 33, max: 5_000 })
        .map((n) => json({ ...sample, scope: Array.from({ length: n }, (_, i) => `k${i}=v`) }, `${n} scope entries`)),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 33, max: 2_000 })
        .map((n) => json({ ...sample, scope: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "v"])) }, `${n} scope keys`)),
    },
    { weight: 2, arbitrary: invalidUtf8(sample) },
    { weight: 2, arbitrary: withNul(sample) },
    { weight: 2, arbitrary: withSurrogate(sample) },
    { weight: 1, arbitrary: fc.nat().map((n) => truncated(sample, n)) },
    { weight: 2, arbitrary: wrongEnvelope(sample) },
    { weight: 1, arbitrary: fc.constant(oversized(sample, bodyLimit)) },
  );
}

function mutated(sample: Json): fc.Arbitrary<BodyCase> {
  const keys = Object.keys(sample);
  const key = fc.constantFrom(...keys, "unknown_field", "__proto__", "constructor", "");
  return fc.oneof(
    keys.length > 0 ? fc.constantFrom(...keys).map((k) => json(omit(sample, k), `without ${k}`)) : fc.constant(json({}, "empty")),
    fc.tuple(key, fc.jsonValue({ maxDepth: 3 })).map(([k, v]) => json({ ...sample, [k]: v }, `${k} replaced`)),
    fc.tuple(key, anyText(200)).map(([k, v]) => json({ ...sample, [k]: v }, `${k} as text`)),
    fc
      .tuple(key, fc.constantFrom(-1, 0, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 2, 0.5, true, null, [], {}))
      .map(([k, v]) => json({ ...sample, [k]: v }, `${k} odd value`)),
  );
}

function omit(sample: Json, key: string): Json {
  const { [key]: _drop, ...rest } = sample;
  return rest;
}

/** Marks a string field, serialises, then splices raw bytes in at the mark. */
function spliced(sample: Json, bytes: Buffer, label: string): BodyCase {
  const field = Object.keys(sample).find((k) => typeof sample[k] === "string") ?? "text";
  const [before, after] = JSON.stringify({ ...sample, [field]: "@@MARK@@" }).split("@@MARK@@");
  return { bytes: Buffer.concat([Buffer.from(before!), bytes, Buffer.from(after!)]), contentType: "application/json", label };
}

function invalidUtf8(sample: Json): fc.Arbitrary<BodyCase> {
  return fc
    .constantFrom([0xff], [0xc3, 0x28], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc0, 0xaf])
    .map((b) => spliced(sample, Buffer.from(b), `invalid UTF-8 ${Buffer.from(b).toString("hex")}`));
}

function withNul(sample: Json): fc.Arbitrary<BodyCase> {
  const field = Object.keys(sample).find((k) => typeof sample[k] === "string") ?? "text";
  return fc.oneof(
    fc.constant(json({ ...sample, [field]: `before\u0000after` }, `NUL in ${field}`)),
    fc.constant(json({ ...sample, metadata: { "k\u0000": "v" } }, "NUL in a key")),
    fc.constant(json({ ...sample, scope: ["org=ac\u0000me"] }, "NUL in scope")),
    fc.constant(spliced(sample, Buffer.from([0]), "raw NUL byte in a string")),
  );
}

/** A lone surrogate in one string of the body, anywhere it nests (JSON.stringify writes it as `\\udXXX`). */
function withSurrogate(sample: Json): fc.Arbitrary<BodyCase> {
  const paths = stringPaths(sample);
  const lone = fc.constantFrom("\ud800", "\udfff", "a\udc00b", "\ud83d");
  if (paths.length === 0) return lone.map((s) => json({ ...sample, text: s }, "lone surrogate in text"));
  return fc
    .tuple(fc.constantFrom(...paths), lone)
    .map(([path, s]) => json(replaceAt(sample, path, s), `lone surrogate in ${path.join(".")}`));
}

/** Every path to a string leaf of a sample body. */
export function stringPaths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value === "string") return [at];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringPaths(v, [...at, i]));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => stringPaths(v, [...at, k]));
  return [];
}

/** A copy of `value` with the leaf at `path` replaced. */
export function replaceAt<T>(value: T, path: (string | number)[], leaf: unknown): T {
  if (path.length === 0) return leaf as T;
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...value }) as Record<string | number, unknown>;
  copy[head!] = replaceAt(copy[head!], rest, leaf);
  return copy as T;
}

function deeplyNested(sample: Json, depth: number): BodyCase {
  const text = `${JSON.stringify(sample).slice(0, -1)}${Object.keys(sample).length ? "," : ""}"metadata":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}`;
  return { bytes: Buffer.from(text), contentType: "application/json", label: `nested ${depth} deep` };
}

function truncated(sample: Json, n: number): BodyCase {
  const text = JSON.stringify(sample);
  return { bytes: Buffer.from(text.slice(0, n % Math.max(1, text.length))), contentType: "application/json", label: "cut off" };
}

function wrongEnvelope(sample: Json): fc.Arbitrary<BodyCase> {
  const bytes = Buffer.from(JSON.stringify(sample));
  return fc.constantFrom<BodyCase>(
    { bytes, contentType: "text/plain", label: "JSON as text/plain" },
    { bytes: Buffer.from("scope[]=org%3Dacme&text=x"), contentType: "application/x-www-form-urlencoded", label: "form" },
    { bytes, contentType: "application/json; charset=latin1", label: "latin1 charset" },
    { bytes, contentType: "application/json", extraHeaders: { "content-encoding": "gzip" }, label: "claims gzip" },
    { bytes, contentType: "application/json", extraHeaders: { "content-encoding": "br-x" }, label: "unknown encoding" },
    { bytes: Buffer.alloc(0), contentType: "application/json", label: "empty JSON body" },
    { bytes: Buffer.from("null"), contentType: "application/json", label: "null" },
    { bytes: Buffer.from('"text"'), contentType: "application/json", label: "a JSON string" },
    { bytes, contentType: "multipart/form-data; boundary=x", label: "multipart" },
  );
}

function oversized(sample: Json, bodyLimit: number): BodyCase {
  const field = Object.keys(sample).find((k) => typeof sample[k] === "string") ?? "text";
  return json({ ...sample, [field]: "a".repeat(bodyLimit + 1) }, "over the body limit");
}
