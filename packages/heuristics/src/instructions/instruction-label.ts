// A short human label for an instruction: "Always respond in bullet points" is labelled
// "Bullet-point responses", "Never use technical jargon" "No technical jargon".

const RESPOND =
  /^(?:respond|answer|reply|write|format(?: (?:your )?(?:answers|responses|replies))?)\s+(?:only\s+)?(?:in|using|with|as)\s+(?:a |an |the |your )?(.+)$/i;
const USE = /^use\s+(?:a |an |the )?(.+)$/i;
const ADDRESS = /^(?:call|address|refer to)\s+me\b/i;
const DANGLING = new Set(["about", "my", "your", "the", "a", "an", "of", "to", "in", "on", "with", "for", "and", "or", "at"]);
const CLAUSE_BREAK = /\s+(?:when|if|because|unless|so|that|and|but|whenever|while|before|after|since|for|to)\s+.*$/i;

export function instructionLabel(polarity: "always" | "never" | "keep", phrase: string): string {
  const p = phrase.trim();
  if (polarity === "keep") return "Response length limit";
  if (ADDRESS.test(p)) return "Form of address";
  const respond = RESPOND.exec(p)?.[1];
  if (respond) return sentenceCase(`${polarity === "never" ? "no " : ""}${compound(short(respond))} responses`);
  const used = USE.exec(p)?.[1];
  if (used) return sentenceCase(`${polarity === "never" ? "no " : ""}${short(used)}`);
  return sentenceCase(`${polarity === "never" ? "never " : ""}${short(p)}`);
}

/** First few words, cut before a subordinate clause. */
function short(phrase: string): string {
  const words = phrase.replace(CLAUSE_BREAK, "").split(/\s+/).slice(0, 4);
  while (words.length > 1 && DANGLING.has((words[words.length - 1] ?? "").toLowerCase())) words.pop();
  return words.join(" ");
}

/** "bullet points" → "bullet-point", to sit before "responses". */
function compound(phrase: string): string {
  const words = phrase.split(/\s+/);
  if (words.length < 2) return phrase;
  const last = (words.pop() ?? "").replace(/(?<=[^s])s$/i, "");
  return [...words, last].join("-");
}

function sentenceCase(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
