// Export and import of a context (docs/export-format.md): GET …/export streams NDJSON page by page with
// backpressure; POST …/import reads such a body line by line (never through the JSON parser).
import type { Response } from "express";
import { z } from "zod";
import { EXPORT_FORMAT, EXPORT_FORMAT_VERSION, EXPORT_KINDS } from "@recall/memory";
import type { ApiDeps } from "../deps";
import { Problem } from "../http/errors";
import { defineRoute, type RouteDefinition } from "../http/route-definition";
import { ScopeQuery } from "../http/scope-schema";
import { PortabilityService } from "../services/portability.service";
import { importLineCap, importLines, IMPORT_MEDIA_TYPES } from "./import-body";

const When = (what: string) =>
  z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time with its offset" }).optional().describe(what);

export const ExportQuery = z.object({
  scope: ScopeQuery.describe("only what a reader in this scope sees (written scope ⊆ it); sessions: those of the turns exported"),
  since: When("only rows created (facts: recorded) at or after this time"),
  until: When("only rows created (facts: recorded) before this time"),
});

export const ImportAnswer = z.object({
  source_context_id: z.uuid(),
  lines: z.number().int(),
  counts: z
    .record(z.string(), z.object({ read: z.number().int(), created: z.number().int() }))
    .describe("per kind: rows read, rows created (the rest were there already)"),
});

const kinds = EXPORT_KINDS.map((k) => k.kind).join(", ");
const NdjsonSchema = {
  type: "string",
  description: `${EXPORT_FORMAT} version ${EXPORT_FORMAT_VERSION}: a header line, then ${kinds}, then an end line`,
};

export function portabilityRoutes(deps: ApiDeps): RouteDefinition[] {
  const portability = new PortabilityService(deps, { documentMaxBytes: deps.config.RECALL_DOCUMENT_MAX_BYTES });
  const maxBytes = deps.config.RECALL_IMPORT_MAX_BYTES;
  const maxLineBytes = importLineCap(maxBytes, deps.config.RECALL_DOCUMENT_MAX_BYTES);
  return [
    defineRoute({
      method: "get",
      path: "/export",
      summary: "Export the context (or what one scope sees, or a time range) as NDJSON",
      description: `Streams ${EXPORT_FORMAT} version ${EXPORT_FORMAT_VERSION} (docs/export-format.md), read in one consistent snapshot: a header line, then one line per row (${kinds}), then an end line with counts. A stream cut short has no end line. Original bytes of uploaded files are left out (the extracted text every span points into is kept).`,
      tags: ["portability"],
      params: z.object({ contextId: z.string() }),
      query: ExportQuery,
      responses: {
        200: {
          description: "The export, one JSON object a line",
          contentType: "application/x-ndjson",
          schema: z.string().describe(NdjsonSchema.description),
        },
      },
      handle: async ({ params, query, res }) => {
        const filters = { scope: query.scope.length ? query.scope : undefined, since: date(query.since), until: date(query.until) };
        res
          .status(200)
          .type("application/x-ndjson")
          .setHeader("Content-Disposition", `attachment; filename="recall-${params.contextId}.ndjson"`);
        try {
          await portability.export(params.contextId, filters, writer(res));
        } catch (err) {
          if (!res.headersSent) throw err;
          deps.logger.error({ contextId: params.contextId, err }, "export stopped part-way");
          res.destroy();
          return { status: 200, streamed: true };
        }
        res.end();
        return { status: 200, streamed: true };
      },
    }),
    defineRoute({
      method: "post",
      path: "/import",
      summary: "Import an export into this context (empty, or the exported one): ids remapped, idempotent, streamed",
      description: `Reads an NDJSON export line by line and writes it in batches; no model is called and no extraction runs (the facts arrive committed, with their provenance). Every id is replaced by one derived from this context and the exported id, so importing the same export again creates nothing twice, and an import that stopped part-way finishes when run again. Into the exported context itself ids are kept (what is missing is restored), but never for a row of another context: a line naming one, as its id or as any reference, is refused and its batch is not written. 400 naming the line and field of a line it refuses (earlier batches are imported): such a line, one that is not UTF-8, nests deeper than 64 levels or is longer than ${maxLineBytes} bytes, or an unknown format version; 409 when the context holds memory from elsewhere; 413 past RECALL_IMPORT_MAX_BYTES (${maxBytes} bytes here).`,
      tags: ["portability"],
      params: z.object({ contextId: z.string() }),
      requestBody: Object.fromEntries(IMPORT_MEDIA_TYPES.map((t) => [t, NdjsonSchema])),
      responses: {
        200: { description: "Imported", schema: ImportAnswer },
        409: {
          description: "The context holds memory that is not from this export's context",
          schema: Problem,
          contentType: "application/problem+json",
        },
        413: { description: "Larger than RECALL_IMPORT_MAX_BYTES", schema: Problem, contentType: "application/problem+json" },
        415: { description: "Not application/x-ndjson", schema: Problem, contentType: "application/problem+json" },
      },
      handle: async ({ params, req }) => {
        const report = await portability.import(params.contextId, importLines(req, maxBytes, maxLineBytes));
        return { status: 200, body: { source_context_id: report.sourceContextId, lines: report.lines, counts: report.counts } };
      },
    }),
  ];
}

const date = (iso: string | undefined) => (iso ? new Date(iso) : undefined);

/** res.write with backpressure: resolves at once if the socket took the chunk, else on 'drain'; rejects if the client left. */
function writer(res: Response): (chunk: string) => Promise<void> {
  return (chunk) =>
    new Promise((resolve, reject) => {
      if (res.destroyed) return reject(new Error("the client went away"));
      if (res.write(chunk)) return resolve();
      const done = (err?: Error) => {
        res.off("drain", onDrain);
        res.off("close", onClose);
        if (err) reject(err);
        else resolve();
      };
      const onDrain = () => done();
      const onClose = () => done(new Error("the client went away"));
      res.once("drain", onDrain);
      res.once("close", onClose);
    });
}
