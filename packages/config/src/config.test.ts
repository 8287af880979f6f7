import { ConfigError, configWith, loadConfig, parseRedisUrl } from "./index";

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

describe("REDIS_URL", () => {
  test("a redis:// URL is one server", () => {
    expect(parseRedisUrl("redis://127.0.0.1:6379")).toEqual({ mode: "single", url: "redis://127.0.0.1:6379" });
  });

  test("redis-cluster:// lists the seed nodes, with optional credentials", () => {
    expect(parseRedisUrl("redis-cluster://10.0.0.1:7000,10.0.0.2:7001, redis-3:7002")).toEqual({
      mode: "cluster",
      nodes: [
        { host: "10.0.0.1", port: 7000 },
        { host: "10.0.0.2", port: 7001 },
        { host: "redis-3", port: 7002 },
      ],
    });
    expect(parseRedisUrl("redis-cluster://app:s%40cret@h1:7000")).toMatchObject({ username: "app", password: "s@cret" });
  });

  test("a malformed URL is refused, naming the forms it takes", () => {
    expect(() => loadConfig({ REDIS_URL: "redis-cluster://h1,h2:7000" })).toThrow(/REDIS_URL: redis-cluster:\/\/ takes host:port pairs/);
    expect(() => loadConfig({ REDIS_URL: "localhost:6379" })).toThrow(/REDIS_URL: must be a redis:\/\/host:port URL or redis-cluster:\/\//);
  });

  test("in cluster mode the queue prefix must carry a hash tag", () => {
    const cluster = "redis-cluster://127.0.0.1:7000,127.0.0.1:7001";
    expect(loadConfig({ REDIS_URL: cluster }).QUEUE_PREFIX).toBe("{recall}");
    expect(loadConfig({ REDIS_URL: cluster, QUEUE_PREFIX: "app-{recall}" }).QUEUE_PREFIX).toBe("app-{recall}");
    expect(() => loadConfig({ REDIS_URL: cluster, QUEUE_PREFIX: "recall" })).toThrow(/QUEUE_PREFIX: must carry a Redis Cluster hash tag/);
    expect(() => loadConfig({ REDIS_URL: cluster, QUEUE_PREFIX: "{}recall" })).toThrow(/QUEUE_PREFIX/);
    expect(loadConfig({ QUEUE_PREFIX: "recall" }).QUEUE_PREFIX).toBe("recall");
  });
});

test("RECALL_TRACE_URL_TEMPLATE is optional, and when set an http(s) URL with {trace_id} in it", () => {
  expect(configWith({}).RECALL_TRACE_URL_TEMPLATE).toBeUndefined();
  expect(configWith({ RECALL_TRACE_URL_TEMPLATE: "  " }).RECALL_TRACE_URL_TEMPLATE).toBeUndefined();
  const jaeger = "http://localhost:16686/trace/{trace_id}";
  expect(loadConfig({ RECALL_TRACE_URL_TEMPLATE: jaeger }).RECALL_TRACE_URL_TEMPLATE).toBe(jaeger);
  for (const bad of ["http://localhost:16686/trace/", "javascript:alert('{trace_id}')"]) {
    expect(() => loadConfig({ RECALL_TRACE_URL_TEMPLATE: bad })).toThrow(
      /RECALL_TRACE_URL_TEMPLATE: must be an http\(s\) URL containing \{trace_id\}/,
    );
  }
});
