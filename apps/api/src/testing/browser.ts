// Headless Chromium for browser tests: Debian's `chromium`, driven by playwright-core (never a
// browser download). Where it is absent the tests are skipped with a warning naming the fix.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";

/** `test`, or `test.skip` with a warning when there is no browser to drive. */
export function browserTestFor(what: string): jest.It {
  if (existsSync(CHROMIUM)) return test;
  console.warn(`${what} skipped: ${CHROMIUM} is absent (apt-get install -y chromium; .ci/run installs it)`);
  return test.skip;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
