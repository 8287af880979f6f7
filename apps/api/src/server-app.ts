// The app a server process runs: the API contract plus the operator mounts beside it
// (queue dashboard, MCP endpoints for agents and operators), which are not part of the OpenAPI document.
import type { Express } from "express";
import { createApp } from "./app";
import type { ApiDeps } from "./deps";
import { ADMIN_DASHBOARD_PATH, adminDashboard } from "./operators/dashboard/dashboard.routes";
import { ADMIN_MCP_PATH, MCP_PATH, adminMcpEndpoint, mcpEndpoint } from "./operators/mcp-server";
import { DASHBOARD_PATH, queueDashboard } from "./operators/queue-dashboard";

export function createServerApp(deps: ApiDeps): Express {
  return createApp(deps, {
    extras: [
      [DASHBOARD_PATH, queueDashboard(deps)],
      [ADMIN_DASHBOARD_PATH, adminDashboard(deps)],
      // The admin endpoint first: MCP_PATH would take "admin" for a context id.
      [ADMIN_MCP_PATH, adminMcpEndpoint(deps)],
      [MCP_PATH, mcpEndpoint(deps)],
    ],
  });
}
