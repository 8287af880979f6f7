// The /docs page in headless Chromium (Debian's `chromium`, driven by playwright-core; never a
// browser download): it renders every operation of /openapi.json, and every request the page
// makes goes to the API that served it, none to another host.
import type { Browser } from "playwright-core";
import { waitFor } from "@recall/test-support";
import { browserTestFor, launchChromium } from "../testing/browser";
import { startHarness, type Harness } from "../testing/harness";
import { listen, type Listening } from "../testing/listen";

const browserTest = browserTestFor("/docs browser test");

let h: Harness;
let server: Listening;
let baseUrl: string;
let browser: Browser | undefined;

beforeAll(async () => {
  h = await startHarness({}, []);
  server = await listen(h.app);
  baseUrl = server.url;
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await h?.close();
});

browserTest("the reference page renders every operation and asks nothing of another host", async () => {
  browser = await launchChromium();
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
  // The page renders tag by tag after the first block shows: wait for all of them (a loaded machine renders slowly).
  const rendered = async () => page.locator(".opblock").count();
  await waitFor(async () => (await rendered()) >= operations, { what: "every operation to render", timeoutMs: 30_000 }).catch(
    () => undefined,
  );
  await expect(rendered()).resolves.toBe(operations);
  await expect(page.locator(".info .title").textContent()).resolves.toContain("Recall API");
  await expect(page.locator(".btn.authorize").count()).resolves.toBe(1);

  const elsewhere = requested.filter((url) => !url.startsWith(`${baseUrl}/`) && !url.startsWith("data:"));
  expect(elsewhere).toEqual([]);
  expect(requested).toEqual(expect.arrayContaining([`${baseUrl}/docs`, `${baseUrl}/openapi.json`]));
  expect(problems).toEqual([]);
});
