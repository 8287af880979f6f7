// Answering a request before its body has arrived (too large, unauthenticated, not JSON, …). Kept alive,
// Node would read and discard the rest of the body before the next request, however long it is: a declared
// 2 GB held the socket until the request timeout (~330 s, then 408). So the answer says Connection: close.
// Closed at once, though, a socket with unread bytes is reset (RST), and a client still sending gets EPIPE
// before it reads the answer. So the close lingers, as Apache's and nginx's do: the answer is sent and the
// write side shut (FIN); what the client still sends is read and dropped until it stops, LINGER_MS pass or
// LINGER_BYTES arrive, and only then is the socket destroyed.
import type { Socket } from "node:net";
import type { Request, Response } from "express";

const LINGER_MS = 2_000;
const LINGER_BYTES = 4 * 1024 * 1024;

export function closeAfterAnswer(req: Request, res: Response): void {
  if (req.complete || res.headersSent) return;
  res.setHeader("Connection", "close");
  const socket = req.socket;
  // Node ends a Connection: close response with socket.destroySoon() (end, then destroy once written).
  Object.assign(socket, { destroySoon: () => linger(req, socket) });
}

function linger(req: Request, socket: Socket): void {
  socket.end();
  const destroy = () => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(destroy, LINGER_MS);
  let dropped = 0;
  req.on("data", (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) destroy();
  });
  req.once("end", destroy);
  req.once("error", destroy);
  req.resume();
}
