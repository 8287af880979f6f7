// The /docs page in headless Chromium (Debian's `chromium`, driven by playwright-core; never a
// browser download): it renders every operation of /openapi.json, and every request the page
// makes goes to the API that served it, none to another host.
import { existsSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser } from "playwright-core";
import { startHarness, type Harness } from "../testing/harness";

const CHROMIUM = "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
if (!available) console.warn(`/docs browser test skipped: ${CHROMIUM} is absent (apt-get install -y chromium; .ci/run installs it)`);
const browserTest = available ? test : test.skip;

let h: Harness;
let server: Server;
let baseUrl: string;
let browser: Browser | undefined;

beforeAll(async () => {
  h = await startHarness({}, []);
  server = await new Promise<Server>((resolve) => {
    const listening = h.app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});

browserTest("the reference page renders every operation and asks nothing of another host", async () => {
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update"],
  });
  const page = await browser.newPage();
  const requested: string[] = [];
  const problems: string[] = [];
  page.on("request", (req) => requested.push(req.url()));
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(msg.text());
  });
  page.on("pageerror", (err) => problems.push(err.message));

  await page.goto(`${baseUrl}/docs`);
  await page.locator(".opblock").first().waitFor({ timeout: 30_000 });
  const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { paths: Record<string, object> };
  const operations = Object.values(document.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
  await expect(page.locator(".opblock").count()).resolves.toBe(operations);
  await expect(page.locator(".info .title").textContent()).resolves.toContain("Recall API");
  await expect(page.locator(".btn.authorize").count()).resolves.toBe(1);

  const elsewhere = requested.filter((url) => !url.startsWith(`${baseUrl}/`) && !url.startsWith("data:"));
  expect(elsewhere).toEqual([]);
  expect(requested).toEqual(expect.arrayContaining([`${baseUrl}/docs`, `${baseUrl}/openapi.json`]));
  expect(problems).toEqual([]);
});
