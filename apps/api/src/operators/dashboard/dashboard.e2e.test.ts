// The dashboard in headless Chromium (Debian's `chromium`, driven by playwright-core; never a
// browser download): a turn whose model call was refused shows as failed work; the operator
// clicks Retry and, without reloading, sees it leave the failed list and every stage succeed.
import { existsSync, mkdirSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import request from "supertest";
import type { Browser } from "playwright-core";
import { startFakeLlmServer, type FakeLlmServer } from "@recall/test-support";
import { createServerApp } from "../../server-app";
import { contextClient, createContext } from "../../testing/api-client";
import { browserTestFor, launchChromium } from "../../testing/browser";
import { ADMIN_KEY, startHarness, type Harness } from "../../testing/harness";

const SCREENSHOTS = path.resolve(__dirname, "../../../../../.data/screenshots");
const browserTest = browserTestFor("dashboard e2e");

let h: Harness;
let llm: FakeLlmServer;
let server: Server;
let baseUrl: string;
let browser: Browser | undefined;

beforeAll(async () => {
  llm = await startFakeLlmServer();
  h = await startHarness({
    RECALL_FAST_MODEL: "openai-compatible:llama3:8b",
    OPENAI_API_KEY: "test-openai-key",
    OPENAI_BASE_URL: llm.openaiBaseUrl,
    LLM_TIMEOUT_MS: "5000",
  });
  const app = createServerApp(h.api);
  server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
  await llm?.close();
});

test("the dashboard and its data need the admin key", async () => {
  const app = createServerApp(h.api);
  expect((await request(app).get("/admin")).status).toBe(401);
  expect((await request(app).get("/admin/overview.json").auth("x", "wrong")).status).toBe(401);
  const ok = await request(app).get("/admin/overview.json").auth("ops", ADMIN_KEY);
  expect(ok.status).toBe(200);
  expect(ok.body.queues.map((q: { queue: string }) => q.queue)).toContain("extract_assertions");
});

test("a retry must come from the dashboard's own page, and a malformed id is 400 naming it", async () => {
  const app = createServerApp(h.api);
  const item = await h.api.db.workItem.create({
    data: {
      contextId: crypto.randomUUID(),
      queue: "commit_artifacts",
      subjectType: "turn",
      subjectId: crypto.randomUUID(),
      traceId: "t",
      maxAttempts: 1,
    },
  });
  const retry = (id: string) => request(app).post(`/admin/work-items/${id}/retry`).auth("ops", ADMIN_KEY);
  const crossSite = await retry(item.id).set("Sec-Fetch-Site", "cross-site").set("Origin", "https://evil.example");
  const foreignOrigin = await retry(item.id).set("Origin", "https://evil.example");
  const basicWithoutOrigin = await retry(item.id);
  for (const res of [crossSite, foreignOrigin, basicWithoutOrigin]) {
    expect({ status: res.status, type: res.type }).toEqual({ status: 403, type: "application/problem+json" });
  }
  // The page's own fetch (same origin), and a script with the Bearer key, get through to the retry rules.
  const host = new URL(baseUrl).host;
  const samePage = await retry(item.id).set("Sec-Fetch-Site", "same-origin").set("Origin", baseUrl).set("Host", host);
  const script = await request(app).post(`/admin/work-items/${item.id}/retry`).set("Authorization", `Bearer ${ADMIN_KEY}`);
  expect([samePage.status, script.status]).toEqual([409, 409]); // queued, so not retryable: the guard let them through
  const malformed = await retry("not-a-uuid").set("Sec-Fetch-Site", "same-origin");
  expect({ status: malformed.status, type: malformed.type, field: malformed.body.errors?.[0]?.field }).toEqual({
    status: 400,
    type: "application/problem+json",
    field: "path.workItemId",
  });
  await h.api.db.workItem.delete({ where: { id: item.id } });
});

browserTest("an operator retries a failed turn from the dashboard and watches it finish", async () => {
  const api = contextClient(h.app, await createContext(h.app, "dash"));
  const session = await api.session();
  llm.script({ status: 401, message: "invalid key" });
  const turn = await api.turn(session, "Priya's team owns the payments gateway, which runs on Kubernetes.", []);
  expect(turn.extraction).toMatchObject({ status: "failed", error_class: "provider" });
  const workItemId = (turn.extraction as unknown as { work_item_id: string }).work_item_id;

  browser = await launchChromium();
  const context = await browser.newContext({ httpCredentials: { username: "ops", password: ADMIN_KEY } });
  const page = await context.newPage();
  await page.goto(`${baseUrl}/admin`);
  const failedRow = page.locator(`#failed tr[data-work-item-id="${workItemId}"]`);
  await failedRow.waitFor();
  await expect(failedRow.textContent()).resolves.toMatch(/provider: provider answered 401/);
  const turnRow = page.locator(`#sessions tr[data-subject-id="${turn.turn_id}"]`);
  await expect(turnRow.locator('[data-queue="extract_assertions"]').getAttribute("data-status")).resolves.toBe("dead");

  llm.script({ json: { entities: [], attributes: [], relations: [], instructions: [], revocations: [], uncertainties: [] } });
  await failedRow.getByRole("button", { name: "Retry" }).click();
  // No reload: the page's polling shows the item leave the failed list and every stage succeed.
  await failedRow.waitFor({ state: "detached", timeout: 30_000 });
  await turnRow.locator('[data-queue="truth_maintenance"][data-status="succeeded"]').waitFor({ timeout: 30_000 });
  const statuses = await turnRow.locator("[data-queue]").evaluateAll((chips) => chips.map((c) => c.getAttribute("data-status")));
  expect(statuses).toEqual(["succeeded", "succeeded", "succeeded", "succeeded"]);
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, "dashboard-after-retry.png"), fullPage: true });
  expect(existsSync(path.join(SCREENSHOTS, "dashboard-after-retry.png"))).toBe(true);
});
