// Serves an app on a free local port, so tests can reach it over real HTTP (as the client does).
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Listening {
  url: string;
  close(): Promise<void>;
}

export async function listen(handler: http.RequestListener): Promise<Listening> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
