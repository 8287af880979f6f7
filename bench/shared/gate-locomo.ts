// Reads LoCoMo conversations (flat JSON: speaker_a, speaker_b, session_N, session_N_date_time,
// session_N_observation, qa) into turns, each marked when observations or QA evidence cite it.
import fs from "node:fs";
import path from "node:path";
import * as chrono from "chrono-node";
import { z } from "zod";

/** Where the LoCoMo conversations are: `LOCOMO_DIR`, else `../shared/data/locomo` beside the repository. */
export function defaultLocomoDir(): string {
  return path.resolve(process.env.LOCOMO_DIR ?? path.resolve(__dirname, "../../../shared/data/locomo"));
}

export interface GateTurn {
  diaId: string;
  speaker: string;
  text: string;
  referenceTime: Date;
  cited: boolean;
  /** What the dataset's annotators noted from this turn: observations, and QA pairs citing it. */
  notes: string[];
  /** The annotators' observations tied to this turn by their dia_id evidence (`session_N_observation`), QA left out. */
  observations: string[];
  /** The photo the turn shares: LoCoMo's `blip_caption` (what text-only systems are given of it) and `img_url`. */
  image?: { caption: string; url?: string };
}

export interface GateConversation {
  file: string;
  speakers: [string, string];
  turns: GateTurn[];
}

const Turn = z.object({
  speaker: z.string(),
  dia_id: z.string(),
  text: z.string(),
  blip_caption: z.string().optional(),
  img_url: z.union([z.string(), z.array(z.string())]).optional(),
});
const Conversation = z.looseObject({
  speaker_a: z.string(),
  speaker_b: z.string(),
  qa: z
    .array(
      z.looseObject({
        question: z.string().default(""),
        answer: z.unknown().optional(),
        adversarial_answer: z.unknown().optional(),
        evidence: z.array(z.string()).default([]),
      }),
    )
    .default([]),
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
  const notes = notesById(raw, head.qa);
  const observed = notesById(raw, []);
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
      .map((t) => {
        const noted = notes.get(t.dia_id) ?? [];
        const turn: GateTurn = {
          diaId: t.dia_id,
          speaker: t.speaker,
          text: t.text,
          referenceTime: at,
          cited: noted.length > 0,
          notes: noted,
          observations: observed.get(t.dia_id) ?? [],
        };
        return t.blip_caption ? { ...turn, image: { caption: t.blip_caption, url: [t.img_url ?? []].flat()[0] } } : turn;
      });
  });
  return { file, speakers: [head.speaker_a, head.speaker_b], turns };
}

/**
 * The turn's photo as a Recall attachment (`attachments` of POST …/turns): its caption, and its URL when it is one
 * the service takes (http or https, within the url cap); never fetched.
 */
export function attachmentsOf(turn: GateTurn): { kind: "image"; caption: string; url?: string }[] {
  if (!turn.image) return [];
  const { caption, url } = turn.image;
  const usable = url !== undefined && url.length <= 2_048 && /^https?:\/\//.test(url);
  return [{ kind: "image", caption: caption.slice(0, 2_000), ...(usable ? { url } : {}) }];
}

function sessionTime(value: unknown): Date | undefined {
  return typeof value === "string" ? (chrono.parseDate(value, { instant: new Date(0), timezone: "UTC" }) ?? undefined) : undefined;
}

/**
 * Notes by dialogue id: observation entries ([text, id or ids]) and QA pairs whose evidence
 * cites the turn. A turn with notes is a cited turn.
 */
function notesById(
  raw: Record<string, unknown>,
  qa: { question: string; answer?: unknown; adversarial_answer?: unknown; evidence: string[] }[],
): Map<string, string[]> {
  const observed = Object.entries(raw)
    .filter(([k]) => /^session_\d+_observation$/.test(k))
    .flatMap(([, v]) => Object.values((v ?? {}) as Record<string, unknown[]>).flat())
    .filter((entry): entry is unknown[] => Array.isArray(entry))
    .map((entry) => ({ note: String(entry[0]), ids: idsIn(JSON.stringify(entry.slice(1))) }));
  const asked = qa.map((q) => ({
    note: `${q.question} ${String(q.answer ?? q.adversarial_answer ?? "")}`,
    ids: q.evidence.flatMap(idsIn),
  }));
  const notes = new Map<string, string[]>();
  for (const { note, ids } of [...observed, ...asked]) for (const id of ids) notes.set(id, [...(notes.get(id) ?? []), note]);
  return notes;
}

/** Tolerates the data's loose id spellings ("D8:6; D9:17", "D:11:26"). */
export function idsIn(text: string): string[] {
  return [...text.matchAll(/D:?(\d+):(\d+)/g)].map((m) => `D${m[1]}:${m[2]}`);
}
