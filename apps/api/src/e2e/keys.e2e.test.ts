// Admin key management: keys are shown once, stored hashed, listed by prefix, rotated
// and revoked; a revoked key stops working at once even though verification is cached.
import request from "supertest";
import { startHarness, ADMIN_KEY, type Harness } from "../testing/harness";
import { createContext, type ContextHandle } from "../testing/api-client";

let h: Harness;
let ctx: ContextHandle;

beforeAll(async () => {
  h = await startHarness({}, []);
  ctx = await createContext(h.app, "acme");
});

afterAll(async () => {
  await h?.close();
});

const admin = (req: request.Test) => req.set("Authorization", `Bearer ${ADMIN_KEY}`);
const keysUrl = () => `/api/v1/contexts/${ctx.contextId}/keys`;
const useKey = (apiKey: string) => request(h.app).get(`/api/v1/${ctx.contextId}/work-items`).set("API-KEY", apiKey);

test("a new key is shown once, works, and is stored only as a scrypt hash", async () => {
  const res = await admin(request(h.app).post(keysUrl()));
  expect(res.status).toBe(201);
  expect(res.body.api_key).toMatch(/^rk_[0-9a-f]{12}_/);
  expect((await useKey(res.body.api_key)).status).toBe(200);
  const row = await h.api.db.apiKey.findUniqueOrThrow({ where: { id: res.body.key_id } });
  expect(row.hash).toMatch(/^scrypt\$/);
  expect(row.hash).not.toContain(res.body.api_key);
  expect(row.lastUsedAt).not.toBeNull();
});

test("the list shows prefixes and state, never keys or hashes, a page at a time", async () => {
  const first = await admin(request(h.app).get(`${keysUrl()}?limit=1`));
  expect(first.status).toBe(200);
  expect(first.body.keys).toHaveLength(1);
  expect(JSON.stringify(first.body)).not.toMatch(/scrypt|rk_/);
  const rest = await admin(request(h.app).get(`${keysUrl()}?limit=10&cursor=${first.body.next_cursor}`));
  expect(rest.body.keys.length).toBeGreaterThanOrEqual(1);
  expect(rest.body.keys.map((k: { key_id: string }) => k.key_id)).not.toContain(first.body.keys[0].key_id);
  expect(rest.body.next_cursor).toBeNull();
});

test("rotation revokes the old key at once, or keeps it when asked", async () => {
  const original = await admin(request(h.app).post(keysUrl()));
  expect((await useKey(original.body.api_key)).status).toBe(200);
  const kept = await admin(request(h.app).post(`${keysUrl()}/${original.body.key_id}/rotate`).send({ keep_old: true }));
  expect(kept.status).toBe(201);
  expect(kept.body.replaced).toMatchObject({ key_id: original.body.key_id, active: true });
  expect((await useKey(original.body.api_key)).status).toBe(200);
  expect((await useKey(kept.body.api_key)).status).toBe(200);
  const rotated = await admin(request(h.app).post(`${keysUrl()}/${kept.body.key_id}/rotate`).send({}));
  expect(rotated.body.replaced).toMatchObject({ key_id: kept.body.key_id, active: false });
  expect((await useKey(kept.body.api_key)).status).toBe(401);
  expect((await useKey(rotated.body.api_key)).status).toBe(200);
});

test("a revoked key cannot be rotated (409), with or without keep_old, and no key is issued", async () => {
  const issued = await admin(request(h.app).post(keysUrl()));
  await admin(request(h.app).delete(`${keysUrl()}/${issued.body.key_id}`));
  const before = await h.api.db.apiKey.count({ where: { contextId: ctx.contextId } });
  for (const body of [{}, { keep_old: true }]) {
    const res = await admin(request(h.app).post(`${keysUrl()}/${issued.body.key_id}/rotate`).send(body));
    expect({ status: res.status, type: res.type }).toEqual({ status: 409, type: "application/problem+json" });
    expect(res.body.detail).toMatch(/revoked/);
  }
  expect(await h.api.db.apiKey.count({ where: { contextId: ctx.contextId } })).toBe(before);
});

test("two rotations of one key racing: one replaces it, the other is refused", async () => {
  const issued = await admin(request(h.app).post(keysUrl()));
  const rotate = () => admin(request(h.app).post(`${keysUrl()}/${issued.body.key_id}/rotate`).send({}));
  const statuses = (await Promise.all([rotate(), rotate(), rotate()])).map((r) => r.status).sort();
  expect(statuses).toEqual([201, 409, 409]);
});

test("revocation takes effect on the next request and is idempotent", async () => {
  const issued = await admin(request(h.app).post(keysUrl()));
  expect((await useKey(issued.body.api_key)).status).toBe(200);
  const revoked = await admin(request(h.app).delete(`${keysUrl()}/${issued.body.key_id}`));
  expect(revoked.body).toMatchObject({ active: false, revoked_at: expect.any(String) });
  expect((await useKey(issued.body.api_key)).status).toBe(401);
  expect((await admin(request(h.app).delete(`${keysUrl()}/${issued.body.key_id}`))).status).toBe(200);
});

test("key management needs the admin key; unknown contexts and keys are 404", async () => {
  expect((await request(h.app).get(keysUrl()).set("API-KEY", ctx.apiKey)).status).toBe(401);
  const unknown = "00000000-0000-4000-8000-000000000000";
  expect((await admin(request(h.app).get(`/api/v1/contexts/${unknown}/keys`))).status).toBe(404);
  expect((await admin(request(h.app).delete(`${keysUrl()}/${unknown}`))).status).toBe(404);
  const bad = await admin(request(h.app).delete(`${keysUrl()}/not-a-uuid`));
  expect(bad.status).toBe(400);
  expect(bad.body.errors[0].field).toBe("path.keyId");
});

test("a key with the right prefix but a wrong secret is refused, even after the right one was verified", async () => {
  const issued = await admin(request(h.app).post(keysUrl()));
  expect((await useKey(issued.body.api_key)).status).toBe(200);
  const forged = `${issued.body.api_key.slice(0, 16)}${"x".repeat(issued.body.api_key.length - 16)}`;
  expect((await useKey(forged)).status).toBe(401);
});
