// A local HTTP endpoint for webhook tests: records every request (headers and raw body) and answers
// with the status the test scripts, request by request (the last one repeats; 200 when none).
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  body: { id: string; type: string; created_at: string; context_id: string; data: Record<string, unknown> };
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedRequest[];
  /** The statuses to answer, in order; the last repeats. */
  answer(...statuses: number[]): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  let statuses = [200];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      received.push({ headers: req.headers, rawBody, body: JSON.parse(rawBody) });
      const status = statuses.length > 1 ? statuses.shift()! : statuses[0]!;
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "try again later");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answer: (...s) => void (statuses = s.length > 0 ? s : [200]),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
