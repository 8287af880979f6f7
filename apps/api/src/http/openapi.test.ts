// The contract test: every route Express serves is declared (so it has schemas and is in
// /openapi.json), and the document describes each one. A route added with a bare
// router.get(...) fails here.
import request from "supertest";
import { z } from "zod";
import { createApp, routeGroups } from "../app";
import { openApiPath } from "./route-definition";
import { registeredRoutes } from "./route-inventory";
import { startHarness, type Harness } from "../testing/harness";

let h: Harness;

beforeAll(async () => {
  h = await startHarness({}, []);
});

afterAll(async () => {
  await h?.close();
});

const key = (r: { method: string; path: string }) => `${r.method.toUpperCase()} ${r.path}`;

function declaredRoutes() {
  return routeGroups(h.api).flatMap((g) =>
    g.routes.map((r) => ({ method: r.method, path: openApiPath(g.prefix, r.path), unlisted: r.unlisted ?? false })),
  );
}

const listedRoutes = () => declaredRoutes().filter((r) => !r.unlisted);

test("every route registered in the app is a declared one, and every declared one is registered", () => {
  const registered = registeredRoutes(h.app);
  expect(registered.filter((r) => !r.declared).map(key)).toEqual([]);
  expect(registered.map(key).sort()).toEqual(declaredRoutes().map(key).sort());
});

test("a route registered without a definition is caught", () => {
  const app = createApp(h.api);
  app.get("/rogue", (_req, res) => void res.json({}));
  expect(
    registeredRoutes(app)
      .filter((r) => !r.declared)
      .map(key),
  ).toEqual(["GET /rogue"]);
});

describe("GET /openapi.json", () => {
  let doc: {
    openapi: string;
    info: { license?: { identifier: string } };
    servers?: { url: string }[];
    tags: { name: string; description: string }[];
    paths: Record<string, Record<string, Operation>>;
  };
  interface Operation {
    operationId: string;
    description?: string;
    tags: string[];
    security: object[];
    parameters: { name: string; in: string; style?: string; schema: { pattern?: string } }[];
    requestBody?: { content: Record<string, { schema: object; example?: unknown }> };
    responses: Record<string, { content?: Record<string, { schema: object; example?: unknown }> }>;
  }

  beforeAll(async () => {
    const res = await request(h.app).get("/openapi.json");
    expect(res.status).toBe(200);
    doc = res.body;
  });

  test("is OpenAPI 3.1 and lists every declared route with a success response schema", () => {
    expect(doc.openapi).toBe("3.1.0");
    for (const route of listedRoutes()) {
      const op = doc.paths[route.path]?.[route.method];
      expect({ route: key(route), found: Boolean(op) }).toEqual({ route: key(route), found: true });
      const success = Object.entries(op!.responses).find(([status]) => status.startsWith("2"));
      expect({ route: key(route), schema: Boolean(success?.[1].content) }).toEqual({ route: key(route), schema: true });
    }
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("describes parameters, bodies, security and problem responses from the zod schemas", () => {
    const profile = doc.paths["/api/v1/{contextId}/profile"]!.get!;
    expect(profile.security).toEqual([{ ApiKey: [] }]);
    expect(profile.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "contextId", in: "path" }),
        expect.objectContaining({ name: "scope", in: "query", style: "deepObject" }),
        expect.objectContaining({ name: "cursor", in: "query" }),
      ]),
    );
    const facts = doc.paths["/api/v1/{contextId}/facts"]!.post!;
    const body = JSON.stringify(facts.requestBody!.content["application/json"]!.schema);
    expect(body).toContain('"enum":["identity","knowledge","context"]');
    expect(facts.responses["400"]!.content!["application/problem+json"]).toBeDefined();
    expect(doc.paths["/api/v1/contexts/{contextId}/keys"]!.get!.security).toEqual([{ AdminBearer: [] }]);
    expect(doc.paths["/healthz"]!.get!.security).toEqual([]);
    const documents = doc.paths["/api/v1/{contextId}/documents"]!.post!;
    expect(Object.keys(documents.requestBody!.content).sort()).toEqual(
      ["application/json", "application/pdf", "multipart/form-data", "text/html", "text/markdown", "text/plain"].sort(),
    );
    expect(documents.responses["413"]!.content!["application/problem+json"]).toBeDefined();
    expect(documents.responses["415"]!.content!["application/problem+json"]).toBeDefined();
  });

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ at: `${method} ${path}`, op })));

  test("has servers, a licence, described tags, and a description and a 4xx answer on every operation", () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: "/" })]);
    expect(doc.info.license).toMatchObject({ identifier: "Apache-2.0" });
    const described = new Set(doc.tags.filter((t) => t.description.length > 20).map((t) => t.name));
    const lacking = operations().filter(
      ({ op }) =>
        !op.description ||
        op.description.length < 40 ||
        !Object.keys(op.responses).some((status) => status.startsWith("4")) ||
        !op.tags.every((t) => described.has(t)),
    );
    expect(lacking.map((o) => o.at)).toEqual([]);
  });

  test("every context id in a path is a UUID, so `contexts` and `admin` can never be read as one", () => {
    const contextIds = operations().flatMap(({ op }) => op.parameters.filter((p) => p.in === "path" && p.name === "contextId"));
    expect(contextIds.length).toBeGreaterThan(20);
    const pattern = new RegExp(contextIds[0]!.schema.pattern!);
    expect(contextIds.every((p) => p.schema.pattern === contextIds[0]!.schema.pattern)).toBe(true);
    expect(["contexts", "admin"].filter((segment) => pattern.test(segment))).toEqual([]);
    expect(pattern.test(crypto.randomUUID())).toBe(true);
  });

  test("the main operations carry request and response examples, each valid for its route's own schemas", () => {
    const routes = routeGroups(h.api).flatMap((g) => g.routes.map((r) => ({ ...r, at: `${r.method} ${openApiPath(g.prefix, r.path)}` })));
    const checked: string[] = [];
    for (const route of routes) {
      if (route.bodyExample !== undefined) {
        const body = route.body ?? route.requestBody?.["application/json"];
        expect(body).toBeInstanceOf(z.ZodType);
        const issues = (body as z.ZodType).safeParse(route.bodyExample).error?.issues;
        expect({ at: route.at, issues }).toEqual({ at: route.at, issues: undefined });
        checked.push(`${route.at} body`);
      }
      for (const [status, spec] of Object.entries(route.responses)) {
        if (spec.example === undefined) continue;
        expect({ at: route.at, issues: spec.schema?.safeParse(spec.example).error?.issues }).toEqual({ at: route.at, issues: undefined });
        checked.push(`${route.at} ${status}`);
      }
    }
    const main = [
      "post /api/v1/{contextId}/sessions/{sessionId}/turns",
      "post /api/v1/{contextId}/sessions/{sessionId}/turns/batch",
      "post /api/v1/{contextId}/query",
      "post /api/v1/{contextId}/facts",
      "post /api/v1/{contextId}/documents",
      "post /api/v1/{contextId}/turns/{turnId}/retract",
    ];
    for (const at of main) expect(checked.filter((c) => c.startsWith(`${at} `)).length).toBe(2);
    expect(checked).toContain("get /api/v1/{contextId}/profile 200");
    const turns = doc.paths["/api/v1/{contextId}/sessions/{sessionId}/turns"]!.post!;
    expect(turns.requestBody!.content["application/json"]!.example).toMatchObject({ role: "user" });
    expect(turns.responses["200"]!.content!["application/json"]!.example).toMatchObject({ extraction: { status: "committed" } });
  });

  test("the 400 every operation declares is real even where nothing is parsed: a NUL in the query", async () => {
    const res = await request(h.app).get("/healthz?probe=%00");
    expect({ status: res.status, type: res.type }).toEqual({ status: 400, type: "application/problem+json" });
    expect(doc.paths["/healthz"]!.get!.responses["400"]).toBeDefined();
  });
});

describe("GET /docs", () => {
  test("serves the reference page, whose every script, style and image is served here, with a policy allowing nothing else", async () => {
    const res = await request(h.app).get("/docs");
    expect(res.status).toBe(200);
    expect(res.type).toBe("text/html");
    expect(res.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(res.headers["content-security-policy"]).not.toMatch(/https?:/);
    const urls = [...res.text.matchAll(/<(?:script|link|img)\b[^>]*\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThanOrEqual(3);
    expect(res.text).not.toMatch(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    const local = urls.filter((u) => !u.startsWith("data:"));
    for (const url of local) {
      expect(url).toMatch(/^\/[^/]/);
      const asset = await request(h.app).get(url);
      expect({ url, status: asset.status, bytes: asset.text.length > 100 }).toEqual({ url, status: 200, bytes: true });
    }
    const init = await request(h.app).get("/docs/init.js");
    expect(init.text).toContain('url: "/openapi.json"');
    expect(init.text).toContain("validatorUrl: null");
  });

  test("an asset that is not the page's is a 404", async () => {
    expect((await request(h.app).get("/docs/index.html")).status).toBe(404);
  });
});
