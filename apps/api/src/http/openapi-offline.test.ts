// The client generator reads the offline document; it must be the one GET /openapi.json serves.
import request from "supertest";
import { offlineOpenApiDocument } from "./openapi-offline";
import { startHarness, type Harness } from "../testing/harness";

let h: Harness;

beforeAll(async () => {
  h = await startHarness({}, []);
});

afterAll(async () => {
  await h?.close();
});

test("the offline OpenAPI document is the served one", async () => {
  const served = await request(h.app).get("/openapi.json");
  expect(served.status).toBe(200);
  expect(served.body).toEqual(offlineOpenApiDocument());
  expect(Object.keys(served.body.paths)).toContain("/api/v1/{contextId}/sessions/{sessionId}/turns");
});
