// Statements the personal grammar reads once their subject is put in the first person:
// about the person addressed ("You went to the beach with your kids"), whose facts go to
// the addressee, and chat that drops the "I" before a past tense ("Just got back from …").

const SHIFTS: [RegExp, string][] = [
  [/\byou're\b/gi, "I'm"],
  [/\byou've\b/gi, "I've"],
  [/\byou'll\b/gi, "I'll"],
  [/\byou'd\b/gi, "I'd"],
  [/\byou are\b/gi, "I am"],
  [/\byou were\b/gi, "I was"],
  [/\byourself\b/gi, "myself"],
  [/\byours\b/gi, "mine"],
  [/\byour\b/gi, "my"],
  [/\byou\b/gi, "I"],
];

const SPEAKER = /\b(?:I|I'm|I've|I'll|I'd|me|my|mine|myself|we|us|our|ours)\b/i;

/** The body in the first person when it is a statement about "you"; undefined otherwise. */
export function shiftedToFirstPerson(body: string): string | undefined {
  if (!/^(?:you|your)\b/i.test(body) || SPEAKER.test(body)) return undefined;
  return SHIFTS.reduce((text, [pattern, replacement]) => text.replace(pattern, replacement), body);
}

// Past tenses only: a dropped subject before a present tense could be an imperative ("Go hiking!").
const DROPPED_SUBJECT =
  /^(?:(?:just|also|finally|recently|really|actually)\s+)*(?:went|got|came|made|took|won|began|started|joined|visited|attended|signed|enrolled|registered|finished|returned|adopted|picked|headed)\b/i;

/** "Just got back from a trip" as "I just got back from a trip"; "Been reading …" as "I've been reading …". */
export function withDroppedSubject(body: string): string | undefined {
  if (/^been\s/i.test(body)) return `I've ${body.charAt(0).toLowerCase()}${body.slice(1)}`;
  if (!DROPPED_SUBJECT.test(body) || !/^\p{Lu}/u.test(body)) return undefined;
  return `I ${body.charAt(0).toLowerCase()}${body.slice(1)}`;
}
