// The contract test: every route Express serves is declared (so it has schemas and is in
// /openapi.json), and the document describes each one. A route added with a bare
// router.get(...) fails here.
import request from "supertest";
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
  return routeGroups(h.api).flatMap((g) => g.routes.map((r) => ({ method: r.method, path: openApiPath(g.prefix, r.path) })));
}

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
  let doc: { openapi: string; paths: Record<string, Record<string, Operation>> };
  interface Operation {
    operationId: string;
    security: object[];
    parameters: { name: string; in: string; style?: string }[];
    requestBody?: { content: Record<string, { schema: object }> };
    responses: Record<string, { content?: Record<string, { schema: object }> }>;
  }

  beforeAll(async () => {
    const res = await request(h.app).get("/openapi.json");
    expect(res.status).toBe(200);
    doc = res.body;
  });

  test("is OpenAPI 3.1 and lists every declared route with a success response schema", () => {
    expect(doc.openapi).toBe("3.1.0");
    for (const route of declaredRoutes()) {
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
});
