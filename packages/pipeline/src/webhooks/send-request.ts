// One delivery request: POST the body, read at most RESPONSE_SNIPPET_BYTES of the answer and drop the
// rest, within one time limit for the whole exchange. Redirects are not followed (a 3xx is a failure):
// following one would leave the address check behind.
import http from "node:http";
import https from "node:https";
import { checkLiteralHost, guardedLookup, type AddressPolicy } from "./url-guard";

export const RESPONSE_SNIPPET_BYTES = 512;

export interface SentRequest {
  status: number;
  /** The answer's first bytes, as text (never more than RESPONSE_SNIPPET_BYTES). */
  snippet: string;
}

export interface OutgoingRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  policy: AddressPolicy;
}

export async function sendRequest(req: OutgoingRequest): Promise<SentRequest> {
  checkLiteralHost(req.url, req.policy);
  const client = req.url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(req.url, {
      method: "POST",
      headers: { ...req.headers, "content-type": "application/json", "content-length": Buffer.byteLength(req.body) },
      lookup: guardedLookup(req.policy),
      signal: AbortSignal.timeout(req.timeoutMs),
    });
    request.on("error", (err) => reject(err.name === "AbortError" ? new Error(`no answer within ${req.timeoutMs} ms`) : err));
    request.on("response", (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const finish = () => {
        res.destroy();
        resolve({ status: res.statusCode ?? 0, snippet: Buffer.concat(chunks).toString("utf8").slice(0, RESPONSE_SNIPPET_BYTES) });
      };
      res.on("data", (chunk: Buffer) => {
        if (kept < RESPONSE_SNIPPET_BYTES) chunks.push(chunk.subarray(0, RESPONSE_SNIPPET_BYTES - kept));
        kept += chunk.length;
        if (kept >= RESPONSE_SNIPPET_BYTES) finish();
      });
      res.on("end", finish);
      res.on("error", finish);
    });
    request.end(req.body);
  });
}
