// A small client over supertest for tests that drive the HTTP API as a user would.
import request from "supertest";
import type { Express } from "express";
import { ADMIN_KEY } from "./harness";

export interface ContextHandle {
  contextId: string;
  apiKey: string;
}

/** A new context (with `config`, e.g. `{ review: "required" }`, when given) and its key. */
export async function createContext(app: Express, name: string, config?: Record<string, unknown>): Promise<ContextHandle> {
  const res = await request(app)
    .post("/api/v1/contexts")
    .set("Authorization", `Bearer ${ADMIN_KEY}`)
    .send(config ? { name, config } : { name });
  if (res.status !== 201) throw new Error(`creating context ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return { contextId: res.body.context_id, apiKey: res.body.api_key };
}

/** Requests under /api/v1/{context_id}/ with the context's key. */
export function contextClient(app: Express, ctx: ContextHandle) {
  const url = (path: string) => `/api/v1/${ctx.contextId}${path}`;
  return {
    get: (path: string) => request(app).get(url(path)).set("API-KEY", ctx.apiKey),
    post: (path: string, body: object = {}) => request(app).post(url(path)).set("API-KEY", ctx.apiKey).send(body),
    del: (path: string) => request(app).delete(url(path)).set("API-KEY", ctx.apiKey),
    async session(): Promise<string> {
      const res = await request(app).post(url("/sessions")).set("API-KEY", ctx.apiKey).send({});
      return res.body.session_id;
    },
    /** Posts a turn and returns the answer (it arrives once the turn's extraction is committed or failed). */
    async turn(sessionId: string, content: string, scope: string[], role = "user") {
      const res = await request(app)
        .post(url(`/sessions/${sessionId}/turns`))
        .set("API-KEY", ctx.apiKey)
        .send({ role, content, scope });
      if (res.status !== 200) throw new Error(`turn answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body as { turn_id: string; extraction: { status: string; work_item_id?: string }; trace_id: string };
    },
  };
}

export type ContextClient = ReturnType<typeof contextClient>;
