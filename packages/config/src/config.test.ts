import { ConfigError, configWith, loadConfig } from "./index";

test("the running lease defaults to 900 s, beyond the default wall-time budget of an attempt", () => {
  const config = configWith({});
  expect(config.RECALL_RUNNING_LEASE_SECONDS).toBe(900);
  expect(config.RECALL_RUNNING_LEASE_SECONDS * 1_000).toBeGreaterThan(config.RECALL_MAX_WALL_MS);
});

test("a running lease no longer than the wall-time budget is refused, naming the setting", () => {
  expect(() => loadConfig({ RECALL_MAX_WALL_MS: "1200000" })).toThrow(ConfigError);
  expect(() => loadConfig({ RECALL_MAX_WALL_MS: "1200000" })).toThrow(
    /RECALL_RUNNING_LEASE_SECONDS: must be longer than RECALL_MAX_WALL_MS/,
  );
  expect(loadConfig({ RECALL_MAX_WALL_MS: "1200000", RECALL_RUNNING_LEASE_SECONDS: "1800" }).RECALL_RUNNING_LEASE_SECONDS).toBe(1_800);
});
