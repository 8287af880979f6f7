// The compose stack is safe as shipped (docs/docker-compose.md): no secret has a default, Postgres and Redis are
// not published on the host and need a password, nothing but the API listens beyond loopback. Docker is not needed:
// the rules are read from the compose files, and the script that writes the secrets is run for real.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "yaml";

interface Service {
  environment?: Record<string, string>;
  ports?: string[];
  command?: string[];
  healthcheck?: { test: string[] };
}

const root = path.resolve(__dirname, "..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");
const servicesOf = (file: string) => (parse(read(file)) as { services: Record<string, Service> }).services;
const SECRETS = ["ADMIN_API_KEY", "POSTGRES_PASSWORD", "REDIS_PASSWORD"];

test("no secret has a default: each is required, naming the script that writes it", () => {
  const text = read("docker-compose.yml");
  for (const name of SECRETS) {
    const uses = [...text.matchAll(new RegExp(`\\$\\{${name}(:?[-?=+])?([^}]*)\\}`, "g"))];
    expect(uses.length).toBeGreaterThan(0);
    for (const use of uses)
      expect({ name, operator: use[1], message: use[2] }).toEqual({
        name,
        operator: ":?",
        message: expect.stringContaining("infra/compose-env.sh"),
      });
  }
  expect(text).not.toMatch(/change-me|trust/i);
});

test("Postgres and Redis are not published on the host, and both need their password", () => {
  const services = servicesOf("docker-compose.yml");
  expect({ postgres: services.postgres!.ports, redis: services.redis!.ports }).toEqual({ postgres: undefined, redis: undefined });
  expect(services.postgres!.environment).toHaveProperty("POSTGRES_PASSWORD");
  expect(services.postgres!.environment).not.toHaveProperty("POSTGRES_HOST_AUTH_METHOD");
  expect(services.redis!.command!.join(" ")).toContain('--requirepass "$$REDIS_PASSWORD"');
  expect(services.redis!.healthcheck!.test.join(" ")).toContain('-a "$$REDIS_PASSWORD"');
  const env = services.api!.environment!;
  expect(env.DATABASE_URL).toMatch(/^postgresql:\/\/postgres:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\//);
  expect(env.REDIS_URL).toMatch(/^redis:\/\/:\$\{REDIS_PASSWORD:\?[^}]+\}@redis:6379$/);
});

test("only the API is published beyond the host's loopback, in the stack and in the host-ports override", () => {
  const published = (file: string) =>
    Object.entries(servicesOf(file)).flatMap(([name, service]) => (service.ports ?? []).map((port) => ({ name, port })));
  const open = [...published("docker-compose.yml"), ...published("infra/compose.host-ports.yml")].filter(
    ({ port }) => !port.startsWith("127.0.0.1:"),
  );
  expect(open).toEqual([{ name: "api", port: "8080:8080" }]);
  expect(published("infra/compose.host-ports.yml").map(({ name }) => name)).toEqual(["postgres", "redis"]);
});

test("infra/compose-env.sh writes each secret once, 32 random bytes as hex, into an owner-only file", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "compose-env-"));
  try {
    const file = path.join(dir, ".env");
    const run = () => execFileSync("sh", [path.join(root, "infra/compose-env.sh"), file], { encoding: "utf8" });
    expect(run()).toContain("wrote REDIS_PASSWORD");
    const first = readFileSync(file, "utf8");
    const values = Object.fromEntries(
      first
        .trim()
        .split("\n")
        .map((line) => line.split("=") as [string, string]),
    );
    expect(Object.keys(values)).toEqual(SECRETS);
    for (const value of Object.values(values)) expect(value).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(Object.values(values)).size).toBe(SECRETS.length);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Again: nothing changes, nothing is said.
    expect(run()).toBe("");
    expect(readFileSync(file, "utf8")).toBe(first);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test(".dockerignore keeps secrets, history, local state and test output out of the build context", () => {
  const lines = read(".dockerignore")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  expect(lines).toEqual(expect.arrayContaining([".env*", ".git", ".data", "coverage", "test-results"]));
});

/** The Dockerfile's stages: each FROM with the instructions under it (continuation lines joined). */
function dockerStages(text: string): { from: string; instructions: [string, string][] }[] {
  const instructions = text
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))
    .map((l) => /^(\w+)\s+(.*)$/.exec(l)!.slice(1, 3) as [string, string]);
  const stages: { from: string; instructions: [string, string][] }[] = [];
  for (const [op, args] of instructions) {
    if (op === "FROM") stages.push({ from: args, instructions: [] });
    else stages.at(-1)!.instructions.push([op, args]);
  }
  return stages;
}

test("the image is built in a stage of its own and runs compiled JavaScript with node, as a non-root user, with a health check", () => {
  const stages = dockerStages(read("infra/Dockerfile"));
  expect(stages.length).toBeGreaterThanOrEqual(2);
  const [build, run] = [stages[0]!, stages.at(-1)!];
  expect(build.instructions.find(([op, args]) => op === "RUN" && args.includes("node infra/build-image.mjs"))).toBeDefined();
  const of = (op: string) => run.instructions.filter(([o]) => o === op).map(([, args]) => args);
  expect(of("COPY")).toEqual([expect.stringMatching(/^--from=\S+ .*\/app \/app$/)]);
  expect(of("USER")).toHaveLength(1);
  expect(of("USER")[0]).not.toMatch(/^(root|0)(:|$)/);
  expect(of("HEALTHCHECK")).toEqual([expect.stringContaining("/healthz")]);
  const cmd = JSON.parse(of("CMD")[0]!) as string[];
  expect(cmd[0]).toBe("node");
  expect(cmd[1]).toMatch(/\.js$/);
  expect(stages.flatMap((s) => s.instructions.map(([, args]) => args)).join("\n")).not.toMatch(/\btsx\b/);
});

test("compose runs the compiled JavaScript, and its Postgres has pgvector", () => {
  const services = servicesOf("docker-compose.yml");
  expect((services.postgres as { image?: string }).image).toMatch(/^pgvector\/pgvector:pg16/);
  for (const name of ["migrate", "api", "worker"]) {
    const command = services[name]!.command!;
    expect({ name, program: command[0], entry: command[1] }).toEqual({ name, program: "node", entry: expect.stringMatching(/\.js$/) });
  }
  expect(read("docker-compose.yml")).not.toMatch(/\btsx\b/);
  // The entry points compose names are the ones infra/tsconfig.image.json compiles.
  const image = read("infra/tsconfig.image.json");
  for (const entry of ["apps/*/src/**/*.ts", "infra/migrate.ts"]) expect(image).toContain(entry);
});
