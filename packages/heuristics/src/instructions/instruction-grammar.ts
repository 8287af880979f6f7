// What an instruction to the assistant looks like: a standing directive about how to
// answer, introduced by "always", "never", "from now on", "please don't", "keep … under".

/** Verbs a user directs at an assistant's behaviour. Encouragement ("never give up",
 * "always believe in yourself") uses other verbs and so is not read as an instruction. */
export const DIRECTIVE_VERBS = new Set(
  `respond answer reply write format use include add cite quote ask explain mention show list start begin end
  finish sign speak talk summarize summarise translate spell wrap return provide avoid double-check check verify
  label flag mark put send remind greet structure limit stick offer suggest correct highlight bold number
  capitalize capitalise confirm address refer prefix suffix append lead open close proofread
  emphasise emphasize describe present rate round convert`.split(/\s+/),
);

/** "Always be concise": `be` only with a style word. */
export const STYLE_WORDS = new Set(
  `concise brief succinct short polite formal informal casual direct specific precise detailed thorough clear
  terse blunt friendly professional neutral objective honest upfront explicit`.split(/\s+/),
);

/** Verbs that take a following object only when it is "me": "give me sources", "tell me why". */
const ME_VERBS = new Set(["give", "tell", "show", "send", "let", "remind", "call"]);

/** A verb phrase reads as a directive when it starts with one of the verbs above. */
export function isDirectivePhrase(phrase: string): boolean {
  const [verb = "", next = ""] = phrase.toLowerCase().split(/\s+/);
  if (verb === "be") return STYLE_WORDS.has(next.replace(/[^a-z-]/g, ""));
  if (ME_VERBS.has(verb) && !DIRECTIVE_VERBS.has(verb)) return next === "me";
  return DIRECTIVE_VERBS.has(verb);
}

/** Request framings before the polarity word, removed before the directive is read. */
export const REQUEST_FRAME =
  /^(?:please\s+)?(?:(?:you\s+(?:should|must|need to|have to)|make sure (?:to|that you|you)|(?:I|i) (?:want|need|would like|'d like) you to|remember to|can you|could you)\s+)?(?:please\s+)?/i;

export const FROM_NOW_ON = /^(?:from now on|going forward|in (?:the )?future|henceforth|starting now)\s*[,:]?\s+/i;
export const FROM_NOW_ON_TAIL = /[\s,]+(?:from now on|going forward|in (?:the )?future|henceforth)$/i;
export const POLARITY = /^(always|never|don't ever|do not ever|don't|do not|never ever)\s+(?:ever\s+)?/i;
export const KEEP_LENGTH =
  /^keep\s+(?:your\s+|the\s+|all\s+|my\s+)?(?:responses|response|answers|answer|replies|reply|messages|explanations|it|things|them|everything)\s+(?:under|below|within|to|short|brief|concise|simple|shorter|succinct|tight)\b/i;

/** "please don't" asks something standing unless it is comfort ("please don't worry"). */
export const COMFORT_VERBS = new Set([
  "worry",
  "cry",
  "apologize",
  "apologise",
  "be",
  "feel",
  "stress",
  "panic",
  "hesitate",
  "mind",
  "laugh",
]);
