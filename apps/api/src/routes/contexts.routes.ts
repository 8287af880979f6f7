import { Router } from "express";
import { z } from "zod";
import { issueApiKey } from "../api-keys";
import { requireAdmin } from "../auth";
import type { ApiDeps } from "../deps";
import { parseBody } from "../validate";

export const CreateContextBody = z.object({
  name: z.string().trim().min(1).max(200),
  config: z.record(z.string(), z.unknown()).optional(),
});

export function contextRoutes(deps: ApiDeps): Router {
  const router = Router();
  router.post("/api/v1/contexts", requireAdmin(deps), async (req, res) => {
    const body = parseBody(CreateContextBody, req.body);
    const issued = await issueApiKey();
    const context = await deps.db.context.create({
      data: {
        name: body.name,
        config: (body.config ?? {}) as object,
        apiKeys: { create: { prefix: issued.prefix, hash: issued.hash } },
      },
    });
    res.status(201).json({ context_id: context.id, api_key: issued.key, name: context.name });
  });
  return router;
}
