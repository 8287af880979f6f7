// The turns of one of Recall's extraction requests, read back from the user prompt it builds:
// a single turn (packages/extraction/src/model-prompt.ts, schema `extraction_diff`) or a window
// of numbered turns (window-prompt.ts, schema `window_extraction`; a batch's turns reach the
// model as windows too); and the commit's question which known entity a contested name means
// (packages/memory disambiguation-prompt.ts, schema `entity_choice`). A repair request repeats the
// first user prompt, so that one is read.
import type { TurnQuery } from "./standin-data";

/** Types of the entities the prompt says are known, by lower-cased name and alias. */
export type KnownTypes = ReadonlyMap<string, string>;

export type Asked =
  | { schema: "extraction_diff"; known: KnownTypes; turn?: TurnQuery }
  | { schema: "window_extraction"; known: KnownTypes; turns: TurnQuery[] }
  | { schema: "entity_choice"; choice: string };

export function askedTurns(schema: string, user: string): Asked | undefined {
  if (schema === "entity_choice") return { schema, choice: entityChoice(user) };
  const known = knownTypes(user);
  if (schema === "extraction_diff") return { schema, known, turn: singleTurn(user) };
  if (schema === "window_extraction") return { schema, known, turns: windowTurns(user) };
  return undefined;
}

/** The known-entities block (knownEntitiesBlock in model-prompt.ts): "- Max (pet; also called Maxie)". */
function knownTypes(user: string): KnownTypes {
  const block = /^Known entities \(use these names when the text refers to them\):\n((?:- .*\n?)+)/m.exec(user)?.[1] ?? "";
  const types = new Map<string, string>();
  for (const line of block.matchAll(/^- (.+) \(([^;)]+)(?:; also called (.+))?\)$/gm)) {
    for (const name of [line[1]!, ...(line[3]?.split(", ") ?? [])]) types.set(name.toLowerCase(), line[2]!);
  }
  return types;
}

/**
 * The annotators name one thing one way throughout a conversation, so a contested name means the offered entity of
 * exactly that name when there is one such; otherwise "new", the answer that never merges two things.
 */
function entityChoice(user: string): string {
  const name = /^Name: "(.*)", read as type /m.exec(user)?.[1]?.toLowerCase();
  const options = [...user.matchAll(/^(\d+)\. (.+?) \(/gm)].filter((m) => m[2]!.toLowerCase() === name);
  return options.length === 1 ? options[0]![1]! : "new";
}

/** A document excerpt is no turn: the stand-in knows only turns. */
function singleTurn(user: string): TurnQuery | undefined {
  const text = /\nInput \(conversation turn\):\n<<<\n([\s\S]*)\n>>>$/.exec(user)?.[1];
  if (text === undefined) return undefined;
  const speaker = /^Speaker: (.+?) \("I", "me" and "my"/m.exec(user)?.[1];
  return { text: contentOf(text), speaker, when: dateOf(/^Reference time: (\S+)$/m.exec(user)?.[1]) };
}

const WINDOW_TURN = /^\[(\d+)\] \((.*); said ([^\s)]+)\)\n<<<\n([\s\S]*?)\n>>>(?=\n\n\[\d+\] \(|\s*$)/gm;

/** The window's turns in their numbered order (the answer names them by index). */
function windowTurns(user: string): TurnQuery[] {
  const section = user.slice(user.indexOf("\nTurns:\n") + "\nTurns:\n".length);
  return [...section.matchAll(WINDOW_TURN)].map((m) => ({
    text: contentOf(m[4]!),
    speaker: /(?:^|, )([^;,]+); "I", "me" and "my"/.exec(m[2]!)?.[1],
    when: dateOf(m[3]),
  }));
}

/**
 * The turn's own words: Recall sends a turn's attachment lines after its content ("[image] a dog on a beach"), and the
 * dataset indexes the content alone. Quotes taken from the content are still inside the text Recall sent.
 */
const contentOf = (text: string) => text.replace(/(?:\n\[(?:image|file|link)\] [^\n]*)+$/, "");

function dateOf(iso: string | undefined): Date | undefined {
  const t = iso === undefined ? NaN : Date.parse(iso);
  return Number.isNaN(t) ? undefined : new Date(t);
}
