// The API app with both MCP endpoints mounted as createServerApp mounts them, listening on an ephemeral port,
// for the tests that drive MCP with the SDK's own client over Streamable HTTP.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Express } from "express";
import { createApp } from "../app";
import { ADMIN_MCP_PATH, MCP_PATH, adminMcpEndpoint, mcpEndpoint } from "../operators/mcp-server";
import type { Harness } from "./harness";

export interface McpApp {
  app: Express;
  server: Server;
  baseUrl: string;
  close(): Promise<void>;
}

export async function listenWithMcp(h: Harness): Promise<McpApp> {
  // The admin endpoint first: MCP_PATH would take "admin" for a context id.
  const app = createApp(h.api, {
    extras: [
      [ADMIN_MCP_PATH, adminMcpEndpoint(h.api)],
      [MCP_PATH, mcpEndpoint(h.api)],
    ],
  });
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, () => resolve(listening));
  });
  return {
    app,
    server,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      // fetch keeps its sockets alive; close them so the server (and the test's worker) can stop.
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
