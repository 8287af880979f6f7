import { Router } from "express";
import { pendingMigrations } from "@recall/db/src/migrator";
import type { ApiDeps } from "../deps";
import { registry } from "@recall/telemetry";

export function healthRoutes(deps: ApiDeps): Router {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    const checks = await Promise.all([
      check("postgres", () => deps.db.$queryRaw`SELECT 1`),
      check("redis", () => deps.redis.ping()),
      check("migrations", async () => {
        const pending = await pendingMigrations(deps.config.DATABASE_URL);
        if (pending.length > 0) throw new Error(`pending: ${pending.join(", ")}`);
      }),
    ]);
    const ready = checks.every((c) => c.ok);
    res.status(ready ? 200 : 503).json({ status: ready ? "ready" : "not_ready", checks });
  });
  router.get("/metrics", async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  });
  return router;
}

async function check(name: string, fn: () => Promise<unknown>): Promise<{ name: string; ok: boolean; error?: string }> {
  try {
    await fn();
    return { name, ok: true };
  } catch (err) {
    return { name, ok: false, error: (err as Error).message };
  }
}
