// MCP tools for operators, within the key's context: list failed work items and retry one,
// under the same rules as the HTTP routes (WorkItemService).
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { NotRetryableError, WorkItemNotFoundError } from "@recall/queues";
import type { ApiDeps } from "../deps";
import { json, toolError } from "./mcp-agent-tools";
import { encodeCursor } from "../http/pagination";
import { FilterFields, filterOf } from "../routes/work-items.schemas";
import { workItemView } from "../views/work-item-view";

export function registerOperatorTools(server: McpServer, deps: ApiDeps, contextId: string): void {
  server.registerTool(
    "list_failed_work_items",
    {
      description: "Failed and dead work items (or the statuses given), newest first, with error class and message and trace id",
      inputSchema: {
        status: z
          .array(z.enum(["failed", "dead", "cancelled"]))
          .optional()
          .describe("default: failed and dead"),
        queue: FilterFields.queue,
        error_class: FilterFields.error_class,
        limit: z.number().int().min(1).max(500).optional(),
      },
    },
    async ({ status, queue, error_class, limit }) => {
      const filter = filterOf({ status: status ?? ["failed", "dead"], queue, error_class }, contextId);
      const page = await deps.workItems.list(filter, { limit: limit ?? 50 });
      return json({ work_items: page.items.map(workItemView), next_cursor: encodeCursor(page.next) });
    },
  );
  server.registerTool(
    "retry_work_item",
    {
      description: "Retry a failed, dead or cancelled work item from its kept input; from=extract runs its extraction again",
      inputSchema: { work_item_id: z.uuid(), from: z.enum(["failed", "extract"]).optional() },
    },
    async ({ work_item_id, from }) => {
      try {
        return json(workItemView(await deps.workItems.retry(work_item_id, { contextId, from })));
      } catch (err) {
        if (err instanceof WorkItemNotFoundError) return toolError(`work item ${work_item_id} not found in this context`);
        if (err instanceof NotRetryableError) return toolError(err.message);
        throw err;
      }
    },
  );
}
