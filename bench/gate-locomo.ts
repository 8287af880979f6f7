// Reads LoCoMo conversations (flat JSON: speaker_a, speaker_b, session_N, session_N_date_time,
// session_N_observation, qa) into turns, each marked when observations or QA evidence cite it.
import fs from "node:fs";
import path from "node:path";
import * as chrono from "chrono-node";
import { z } from "zod";

export interface GateTurn {
  diaId: string;
  speaker: string;
  text: string;
  referenceTime: Date;
  cited: boolean;
}

export interface GateConversation {
  file: string;
  speakers: [string, string];
  turns: GateTurn[];
}

const Turn = z.object({ speaker: z.string(), dia_id: z.string(), text: z.string() });
const Conversation = z.looseObject({
  speaker_a: z.string(),
  speaker_b: z.string(),
  qa: z.array(z.looseObject({ evidence: z.array(z.string()).default([]) })).default([]),
});

export function loadConversations(dir: string): GateConversation[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => readConversation(file, JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as Record<string, unknown>));
}

function readConversation(file: string, raw: Record<string, unknown>): GateConversation {
  const head = Conversation.parse(raw);
  const cited = citedIds(
    raw,
    head.qa.flatMap((q) => q.evidence),
  );
  const sessions = Object.keys(raw)
    .map((k) => /^session_(\d+)$/.exec(k)?.[1])
    .filter((n): n is string => n !== undefined)
    .sort((a, b) => Number(a) - Number(b));
  let when = new Date(0);
  const turns = sessions.flatMap((n) => {
    when = sessionTime(raw[`session_${n}_date_time`]) ?? when;
    const at = when;
    return z
      .array(Turn)
      .parse(raw[`session_${n}`])
      .map((t) => ({ diaId: t.dia_id, speaker: t.speaker, text: t.text, referenceTime: at, cited: cited.has(t.dia_id) }));
  });
  return { file, speakers: [head.speaker_a, head.speaker_b], turns };
}

function sessionTime(value: unknown): Date | undefined {
  return typeof value === "string" ? (chrono.parseDate(value, { instant: new Date(0), timezone: "UTC" }) ?? undefined) : undefined;
}

/** Dialogue ids cited anywhere: observation entries ([text, id or ids]) and QA evidence. */
function citedIds(raw: Record<string, unknown>, evidence: string[]): Set<string> {
  const observed = Object.entries(raw)
    .filter(([k]) => /^session_\d+_observation$/.test(k))
    .flatMap(([, v]) => Object.values((v ?? {}) as Record<string, unknown[]>).flat())
    .map((entry) => JSON.stringify(Array.isArray(entry) ? entry.slice(1) : []));
  return new Set([...observed, ...evidence].flatMap(idsIn));
}

/** Tolerates the data's loose id spellings ("D8:6; D9:17", "D:11:26"). */
function idsIn(text: string): string[] {
  return [...text.matchAll(/D:?(\d+):(\d+)/g)].map((m) => `D${m[1]}:${m[2]}`);
}
