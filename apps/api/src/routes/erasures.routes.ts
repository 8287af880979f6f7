// Erasure (docs/erasure.md): the text of inputs deleted for good, answered with a receipt that GET reads again.
// The admin erasure of a whole context is under /api/v1/contexts (adminErasureRoutes).
import { z } from "zod";
import { ERASURE_LIMITS, type ErasureReceipt } from "@recall/memory";
import type { ApiDeps } from "../deps";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { ScopeBody } from "../http/scope-schema";
import { EXAMPLES } from "./openapi-examples";

const CAP = ERASURE_LIMITS.idsPerList;
const Ids = (noun: string) =>
  z
    .array(z.uuid(`each must be a ${noun} id`))
    .max(CAP, `at most ${CAP} ids in one erasure`)
    .optional()
    .describe(`${noun} ids of this context (at most ${CAP})`);

const FIELDS = ["turn_ids", "document_ids", "session_ids", "fact_write_ids", "scope"] as const;

export const EraseBody = z
  .object({
    turn_ids: Ids("turn"),
    document_ids: Ids("document"),
    session_ids: Ids("session"),
    fact_write_ids: Ids("direct write"),
    scope: ScopeBody.optional().describe(
      'every input written under this scope (its scope contains every pair), e.g. {"user": "alice"}: a data subject\'s inputs',
    ),
  })
  .strict()
  .superRefine((body, ctx) => {
    const named = FIELDS.some((f) => (body[f]?.length ?? 0) > 0);
    if (!named) ctx.addIssue({ code: "custom", path: ["turn_ids"], message: `name what to erase: one of ${FIELDS.join(", ")}` });
  });

const IdLists = z.object({
  turn_ids: z.array(z.string()),
  document_ids: z.array(z.string()),
  fact_write_ids: z.array(z.string()),
  session_ids: z.array(z.string()),
});

export const ErasureView = z.object({
  erasure_id: z.uuid(),
  kind: z.enum(["inputs", "context"]),
  complete: z
    .boolean()
    .describe(
      `false when sessions or scope named more than ${ERASURE_LIMITS.inputsPerErasure} inputs: send the same request again for the rest`,
    ),
  erased: IdLists.describe("the inputs erased (sessions: those asked for, or left without turns)"),
  already_erased: IdLists.describe("asked-for ids an earlier erasure of this context had erased"),
  counts: z.record(z.string(), z.number()).describe("rows deleted per table"),
  hash: z.string().describe("sha256 (hex) over the sorted lines `kind id content-sha256` of the erased inputs, computed before deletion"),
  erased_at: z.string(),
});

export function erasureRoutes(deps: ApiDeps): RouteDefinition[] {
  const { erasures } = deps;
  return [
    defineRoute({
      method: "post",
      idempotent: true,
      path: "/erasures",
      summary: "Erase inputs for good (turns, documents, direct writes, sessions, a scope's inputs), with a receipt",
      description: `Deletes the inputs' text from every table that holds it (turns, documents and their nodes and stored originals, candidates, assertions and quotes, search statistics, embeddings, work items, stored idempotent answers), and everything learned only from them; facts other inputs also support stay, with those inputs' provenance. One transaction; its receipt is kept (never the text) and readable by GET. 404 naming the field when an id is not this context's (nothing is erased); ids erased before are reported under already_erased. At most ${CAP} ids a list and ${ERASURE_LIMITS.inputsPerErasure} inputs an erasure.`,
      tags: ["erasure"],
      params: z.object({ contextId: z.string() }),
      body: EraseBody,
      bodyExample: EXAMPLES.erase.request,
      responses: { 200: { description: "The receipt", schema: ErasureView, example: EXAMPLES.erase.response } },
      handle: async ({ params, body }) => {
        const receipt = await erasures.erase({
          contextId: params.contextId,
          turnIds: body.turn_ids,
          documentIds: body.document_ids,
          sessionIds: body.session_ids,
          factWriteIds: body.fact_write_ids,
          scope: body.scope,
        });
        return { status: 200, body: erasureView(receipt) };
      },
    }),
    defineRoute({
      method: "get",
      path: "/erasures/:erasureId",
      summary: "Read an erasure's receipt",
      description: "The receipt POST /erasures answered, as recorded. 404 when it is not this context's.",
      tags: ["erasure"],
      params: z.object({ contextId: z.string(), erasureId: z.uuid("must be an erasure id") }),
      responses: { 200: { description: "The receipt", schema: ErasureView, example: EXAMPLES.erase.response } },
      handle: async ({ params }) => ({ status: 200, body: erasureView(await erasures.get(params.contextId, params.erasureId)) }),
    }),
  ];
}

/** Admin: the whole context erased (its keys too), and its receipt read afterwards. */
export function adminErasureRoutes(deps: ApiDeps): RouteDefinition[] {
  const { erasures } = deps;
  const params = z.object({ contextId: z.uuid("must be a context id") });
  return [
    defineRoute({
      method: "post",
      idempotent: true,
      path: "/:contextId/erasure",
      summary: "Erase a whole context (every input, all memory, its API keys), with a receipt",
      description:
        "Deletes every row of the context in every table, its stored document originals, its API keys and the context itself, in one transaction. The receipt is kept and readable under /api/v1/contexts/{contextId}/erasures/{erasureId}. 404 when the context does not exist.",
      tags: ["erasure"],
      params,
      responses: { 200: { description: "The receipt", schema: ErasureView } },
      handle: async ({ params }) => ({ status: 200, body: erasureView(await erasures.eraseContext(params.contextId)) }),
    }),
    defineRoute({
      method: "get",
      path: "/:contextId/erasures/:erasureId",
      summary: "Read any erasure's receipt of a context, including the context's own erasure",
      description: "404 when there is no such receipt for the context.",
      tags: ["erasure"],
      params: params.extend({ erasureId: z.uuid("must be an erasure id") }),
      responses: { 200: { description: "The receipt", schema: ErasureView } },
      handle: async ({ params }) => ({ status: 200, body: erasureView(await erasures.get(params.contextId, params.erasureId)) }),
    }),
  ];
}

export function erasureView(r: ErasureReceipt): z.infer<typeof ErasureView> {
  const lists = (ids: ErasureReceipt["erased"]) => ({
    turn_ids: ids.turn,
    document_ids: ids.document,
    fact_write_ids: ids.fact_write,
    session_ids: ids.session,
  });
  return {
    erasure_id: r.erasureId,
    kind: r.kind,
    complete: r.complete,
    erased: lists(r.erased),
    already_erased: lists(r.alreadyErased),
    counts: r.counts,
    hash: r.hash,
    erased_at: r.erasedAt.toISOString(),
  };
}
