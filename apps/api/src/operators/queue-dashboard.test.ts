import request from "supertest";
import { createApp } from "../app";
import { DASHBOARD_PATH, queueDashboard } from "./queue-dashboard";
import { ADMIN_KEY, startHarness, type Harness } from "../testing/harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({}, []);
});
afterAll(() => h?.close());

const basic = (password: string) => `Basic ${Buffer.from(`ops:${password}`).toString("base64")}`;

test("the queue dashboard needs the admin key and lists both lanes of the pipeline queues", async () => {
  const app = createApp(h.api, { extras: [[DASHBOARD_PATH, queueDashboard(h.api)]] });
  const denied = await request(app).get(DASHBOARD_PATH);
  expect(denied.status).toBe(401);
  expect(denied.headers["www-authenticate"]).toMatch(/^Basic/);
  expect((await request(app).get(DASHBOARD_PATH).set("Authorization", basic("wrong"))).status).toBe(401);
  const page = await request(app).get(`${DASHBOARD_PATH}/`).set("Authorization", basic(ADMIN_KEY));
  expect(page.status).toBe(200);
  expect(page.text).toMatch(/<html/i);
  const queues = await request(app).get(`${DASHBOARD_PATH}/api/queues`).set("Authorization", `Bearer ${ADMIN_KEY}`);
  expect(queues.status).toBe(200);
  const stages = ["commit_artifacts", "extract_assertions", "extract_window", "truth_maintenance", "validate_artifacts"];
  expect(queues.body.queues.map((q: { name: string }) => q.name).sort()).toEqual(
    [...stages, ...stages.map((s) => `${s}_background`)].sort(),
  );
});

test("the queue dashboard is read-only: its retry, clean and delete actions are refused", async () => {
  const app = createApp(h.api, { extras: [[DASHBOARD_PATH, queueDashboard(h.api)]] });
  const bearer = `Bearer ${ADMIN_KEY}`;
  const actions = [
    request(app).put(`${DASHBOARD_PATH}/api/queues/extract_assertions/retry/failed`).set("Authorization", bearer),
    request(app).put(`${DASHBOARD_PATH}/api/queues/extract_assertions/clean/completed`).set("Authorization", bearer),
    request(app).delete(`${DASHBOARD_PATH}/api/queues/extract_assertions/job-1`).set("Authorization", bearer),
    request(app).post(`${DASHBOARD_PATH}/api/queues/extract_assertions/add`).set("Authorization", bearer).send({ name: "x" }),
  ];
  for (const res of await Promise.all(actions))
    expect({ status: res.status, type: res.type }).toEqual({ status: 405, type: "application/problem+json" });
  // Bull Board itself shows every queue read-only too.
  const queues = await request(app).get(`${DASHBOARD_PATH}/api/queues`).set("Authorization", bearer);
  expect(queues.body.queues.every((q: { readOnlyMode: boolean }) => q.readOnlyMode)).toBe(true);
});
