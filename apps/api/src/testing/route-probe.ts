// Calls every route Express serves once, with its path filled in and the right credentials, and
// reports what each answered: for tests of what the whole API does in a given state (an outage).
import { randomUUID } from "node:crypto";
import type { Express } from "express";
import request from "supertest";
import { registeredRoutes } from "../http/route-inventory";
import { ADMIN_KEY } from "./harness";

export interface ProbeAnswer {
  route: string;
  status: number;
  retryAfter?: string;
  contentType?: string;
  body: unknown;
}

export interface ProbeTarget {
  contextId: string;
  apiKey: string;
  /** Values for path parameters by name (sessionId, documentId, …); others get a fresh uuid. */
  ids?: Record<string, string>;
  /** Bodies for routes that refuse `{}` before they reach the database, by `METHOD path`. */
  bodies?: Record<string, object>;
}

export async function probeEveryRoute(app: Express, target: ProbeTarget): Promise<ProbeAnswer[]> {
  const answers: ProbeAnswer[] = [];
  for (const { method, path } of registeredRoutes(app)) {
    const route = `${method.toUpperCase()} ${path}`;
    // The admin erasure of a whole context and its config change are probed on a context that does not exist, never the test's own.
    const contextId = /^\/api\/v1\/contexts\/\{contextId\}\/(erasure|config)$/.test(path) ? randomUUID() : target.contextId;
    const url = path.replace(/\{(\w+)\}/g, (_, name: string) => (name === "contextId" ? contextId : (target.ids?.[name] ?? randomUUID())));
    let req = start(request(app), method, url);
    req = /^\/api\/v1\/(contexts|admin)(\/|$)/.test(path)
      ? req.set("Authorization", `Bearer ${ADMIN_KEY}`)
      : req.set("API-KEY", target.apiKey);
    if (method !== "get") req = req.send(target.bodies?.[route] ?? {});
    const res = await req;
    answers.push({
      route,
      status: res.status,
      retryAfter: res.headers["retry-after"],
      contentType: res.headers["content-type"],
      body: res.body,
    });
  }
  return answers;
}

/** The request of a route's method (the methods Express routes take). */
function start(agent: ReturnType<typeof request>, method: string, url: string): request.Test {
  const methods: Record<string, (url: string) => request.Test> = {
    get: (u) => agent.get(u),
    post: (u) => agent.post(u),
    put: (u) => agent.put(u),
    patch: (u) => agent.patch(u),
    delete: (u) => agent.delete(u),
  };
  const call = methods[method];
  if (!call) throw new Error(`no probe for method ${method}`);
  return call(url);
}
