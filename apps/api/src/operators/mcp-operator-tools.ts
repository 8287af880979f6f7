// MCP tools for operators, on the admin endpoint only (the admin key): failed work across every
// context (context_id narrows it), one item with its attempts, a retry, and extract-again of the inputs
// awaiting a model, under the same rules as the admin HTTP routes (WorkItemService, ExtractAgainService).
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ApiDeps } from "../deps";
import { DomainError } from "@recall/contracts";
import { READ_ONLY, structured, toolError } from "./mcp-agent-tools";
import { encodeCursor } from "../http/pagination";
import {
  AdminFilterFields,
  ExtractAgainBody,
  ExtractAgainReport,
  WorkItemDetail,
  WorkItemPage,
  filterOf,
  workItemDetail,
} from "../routes/work-items.schemas";
import { extractAgainService } from "../services/extract-again";
import { extractAgainView } from "../views/extract-again-view";
import { WorkItemView, workItemView } from "../views/work-item-view";

const RETRIES: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

export function registerOperatorTools(server: McpServer, deps: ApiDeps): void {
  server.registerTool(
    "list_failed_work_items",
    {
      title: "List failed work",
      description: "Failed and dead work items (or the statuses given), newest first, with error class and message and trace id",
      inputSchema: z.strictObject({
        status: z
          .array(z.enum(["failed", "dead", "cancelled"]))
          .optional()
          .describe("default: failed and dead"),
        context_id: AdminFilterFields.context_id.describe("only this context's items (default: every context)"),
        queue: AdminFilterFields.queue,
        error_class: AdminFilterFields.error_class,
        limit: z.number().int().min(1).max(500).optional().describe("page size (default 50)"),
      }),
      outputSchema: WorkItemPage,
      annotations: READ_ONLY,
    },
    async ({ status, context_id, queue, error_class, limit }) => {
      const filter = filterOf({ status: status ?? ["failed", "dead"], context_id, queue, error_class }, undefined);
      const page = await deps.workItems.list(filter, { limit: limit ?? 50 });
      return structured({ work_items: page.items.map(workItemView), next_cursor: encodeCursor(page.next) });
    },
  );
  server.registerTool(
    "get_work_item",
    {
      title: "Read a work item",
      description: "One work item with every attempt: error class and message, budget used, timings, trace id",
      inputSchema: z.strictObject({ work_item_id: z.uuid("must be a work item id") }),
      outputSchema: WorkItemDetail,
      annotations: READ_ONLY,
    },
    async ({ work_item_id }) => {
      const item = await deps.workItems.get(work_item_id);
      return item ? structured(workItemDetail(item)) : toolError(`work item ${work_item_id} not found`);
    },
  );
  server.registerTool(
    "retry_work_item",
    {
      title: "Retry a work item",
      description: "Retry a failed, dead or cancelled work item from its kept input; from=extract runs its extraction again",
      inputSchema: z.strictObject({ work_item_id: z.uuid("must be a work item id"), from: z.enum(["failed", "extract"]).optional() }),
      outputSchema: WorkItemView,
      annotations: RETRIES,
    },
    async ({ work_item_id, from }) => {
      try {
        return structured(workItemView(await deps.workItems.retry(work_item_id, { from })));
      } catch (err) {
        if (err instanceof DomainError) return toolError(err.message);
        throw err;
      }
    },
  );
  server.registerTool(
    "extract_again",
    {
      title: "Extract again with the model now configured",
      description:
        "Inputs awaiting a model (the rules committed what they could read) are extracted again with the configured model; " +
        "only what the rules had not committed is added. dry_run: count inputs and model calls and estimate tokens and cost, queue nothing",
      inputSchema: z.strictObject({
        context_id: ExtractAgainBody.shape.context_id,
        dry_run: z.boolean().optional().describe("count and estimate only (default false)"),
      }),
      outputSchema: ExtractAgainReport,
      annotations: RETRIES,
    },
    async ({ context_id, dry_run }) => {
      try {
        return structured(extractAgainView(await extractAgainService(deps).call({ contextId: context_id, dryRun: dry_run })));
      } catch (err) {
        if (err instanceof DomainError) return toolError(err.message);
        throw err;
      }
    },
  );
}
