// Requests Node's HTTP parser refuses before Express sees them (a URL or headers over the
// parser's limit, bytes that are not HTTP) are answered as problem+json too, instead of
// Node's bare "400 Bad Request" / "431" with no body.
import { STATUS_CODES, type Server } from "node:http";
import type { Duplex } from "node:stream";

const STATUS_BY_CODE: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    "headers",
    "the request line and headers are larger than the server accepts (16 KiB); send long scopes in a POST body",
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "request", "the request did not arrive in time"],
};

export function answerClientErrors(server: Server): void {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === "ECONNRESET" || !socket.writable) return void socket.destroy();
    const [status, field, message] = STATUS_BY_CODE[err.code ?? ""] ?? [400, "request", "is not a well-formed HTTP request"];
    const title = (STATUS_CODES[status] ?? "bad request").toLowerCase();
    const body = JSON.stringify({
      type: `https://recall.dev/problems/${title.replaceAll(" ", "_")}`,
      title,
      status,
      detail: `${field}: ${message}`,
      errors: [{ field, message }],
    });
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      "Content-Type: application/problem+json",
      `Content-Length: ${Buffer.byteLength(body)}`,
      "Connection: close",
    ];
    socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
  });
}
