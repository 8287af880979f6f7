// The stand-in model's knowledge: every turn of a LoCoMo-format directory, found by its text,
// with the annotators' observations of it (`session_N_observation`: {speaker: [[sentence, dia_id], …]}).
// A request names a turn only by its text, so the text is the key; a text said more than once
// (a "Thanks!" in two conversations) is told apart by the speaker and the time the request gives.
import fs from "node:fs";
import path from "node:path";
import { idsIn, loadConversations, type GateTurn } from "../shared/gate-locomo";

export interface Annotation {
  /** The speaker the dataset files the observation under. */
  speaker: string;
  sentence: string;
}

export interface AnnotatedTurn {
  file: string;
  diaId: string;
  speaker: string;
  text: string;
  /** The session's date: what the annotation's time phrases resolve against. */
  sessionDate: Date;
  annotations: Annotation[];
}

export interface TurnQuery {
  text: string;
  speaker?: string;
  when?: Date;
}

export interface StandinIndex {
  turns: number;
  annotated: number;
  find(query: TurnQuery): AnnotatedTurn | undefined;
  /** Every turn with at least one annotation, in the directory's order. */
  annotatedTurns(): AnnotatedTurn[];
}

export function loadStandinIndex(dir: string): StandinIndex {
  const byText = new Map<string, AnnotatedTurn[]>();
  let [turns, annotated] = [0, 0];
  for (const conversation of loadConversations(dir)) {
    const notes = observations(path.join(dir, conversation.file));
    for (const turn of conversation.turns) {
      const entry = annotatedTurn(conversation.file, turn, notes.get(turn.diaId) ?? []);
      const key = textKey(turn.text);
      byText.set(key, [...(byText.get(key) ?? []), entry]);
      turns += 1;
      if (entry.annotations.length > 0) annotated += 1;
    }
  }
  return {
    turns,
    annotated,
    find: (query) => closest(byText.get(textKey(query.text)) ?? [], query),
    annotatedTurns: () => [...byText.values()].flat().filter((t) => t.annotations.length > 0),
  };
}

function annotatedTurn(file: string, turn: GateTurn, annotations: Annotation[]): AnnotatedTurn {
  return { file, diaId: turn.diaId, speaker: turn.speaker, text: turn.text, sessionDate: turn.referenceTime, annotations };
}

/** The same words however they were spaced, quoted or escaped on the way (HTML entities, curly quotes, NFKC forms). */
export function textKey(text: string): string {
  return text
    .normalize("NFKC")
    .replace(/&(amp|quot|#39|apos|lt|gt);/g, (_, name: string) => ENTITIES[name] ?? "")
    .replace(/[‘’`´]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

const ENTITIES: Record<string, string> = { amp: "&", quot: '"', "#39": "'", apos: "'", lt: "<", gt: ">" };

/** Of the turns with this text, the one said by this speaker closest to this time. */
function closest(candidates: AnnotatedTurn[], { speaker, when }: TurnQuery): AnnotatedTurn | undefined {
  const bySpeaker = speaker ? candidates.filter((t) => t.speaker.toLowerCase() === speaker.toLowerCase()) : [];
  const pool = bySpeaker.length > 0 ? bySpeaker : candidates;
  const distance = (t: AnnotatedTurn) => (when ? Math.abs(t.sessionDate.getTime() - when.getTime()) : 0);
  return [...pool].sort((a, b) => distance(a) - distance(b))[0];
}

/** Observations by dialogue id; an entry citing several turns is noted on each. */
function observations(file: string): Map<string, Annotation[]> {
  const raw = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
  const notes = new Map<string, Annotation[]>();
  for (const [key, value] of Object.entries(raw)) {
    if (!/^session_\d+_observation$/.test(key) || !value || typeof value !== "object") continue;
    for (const [speaker, entries] of Object.entries(value as Record<string, unknown>)) {
      if (!Array.isArray(entries)) continue;
      for (const entry of entries) {
        if (!Array.isArray(entry) || typeof entry[0] !== "string") continue;
        const note = { speaker, sentence: entry[0].trim() };
        for (const id of idsIn(JSON.stringify(entry.slice(1)))) notes.set(id, [...(notes.get(id) ?? []), note]);
      }
    }
  }
  return notes;
}
