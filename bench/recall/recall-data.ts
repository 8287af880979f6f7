// The LoCoMo material bench:recall needs: each conversation's turns (gate-locomo.ts reads
// them, with the session date of every turn) and its QA questions of categories 1–4 with
// the dialogue ids they cite as evidence. Category 5 (adversarial: the answer is not in the
// conversation) has no evidence to find and is left out.
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { loadConversations, type GateConversation } from "../shared/gate-locomo";

export const CATEGORY_NAMES: Record<number, string> = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop" };

export interface RecallQuestion {
  file: string;
  question: string;
  category: number;
  /** Dialogue ids ("D1:3") of the turns the dataset cites. */
  evidence: string[];
}

export interface RecallData {
  conversations: GateConversation[];
  questions: RecallQuestion[];
}

const Qa = z.looseObject({
  qa: z
    .array(z.looseObject({ question: z.string(), category: z.number().optional(), evidence: z.array(z.string()).default([]) }))
    .default([]),
});

export function readRecallData(dir: string): RecallData {
  const conversations = loadConversations(dir);
  const questions = conversations.flatMap((c) => {
    const raw = Qa.parse(JSON.parse(fs.readFileSync(path.join(dir, c.file), "utf8")));
    return raw.qa
      .filter((q) => q.category !== undefined && q.category in CATEGORY_NAMES)
      .map((q) => ({ file: c.file, question: q.question, category: q.category!, evidence: q.evidence.flatMap(idsIn) }))
      .filter((q) => q.evidence.length > 0);
  });
  return { conversations, questions };
}

/** The data spells some ids loosely ("D8:6; D9:17", "D:11:26"). */
function idsIn(text: string): string[] {
  return [...text.matchAll(/D:?(\d+):(\d+)/g)].map((m) => `D${m[1]}:${m[2]}`);
}
