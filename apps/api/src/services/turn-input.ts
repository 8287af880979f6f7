// What the turn service takes: the parsed request bodies of the turn routes and of MCP's remember tool have
// these shapes (the zod schemas that parse them live with the routes).

import type { Attachment } from "@recall/contracts";

/** One turn of a batch, or the fields of a single turn. */
export interface BatchTurn {
  role: "user" | "assistant" | "system" | "tool";
  content: string;
  attachments?: Attachment[];
  name?: string;
  occurred_at?: string;
  scope: string[];
}

export interface TurnInput extends BatchTurn {
  /** false: answer at once; the turn is extracted with its session's other asynchronous turns, one window at a time. */
  wait: boolean;
}
