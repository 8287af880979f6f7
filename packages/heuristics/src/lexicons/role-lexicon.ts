// Words that make a noun phrase a job role or title, so "CTO at Acme" and "the head of
// product" read as roles while "the capital of France" does not.

const ROLE_HEADS = new Set(
  `founder cofounder co-founder owner president chair chairman chairwoman chairperson partner intern
  engineer developer programmer designer architect analyst scientist researcher consultant advisor adviser
  manager director officer administrator admin coordinator specialist technician lead principal head
  teacher professor lecturer tutor student nurse doctor physician surgeon dentist therapist counselor counsellor
  lawyer attorney paralegal accountant auditor editor writer author journalist reporter photographer
  chef cook baker waiter waitress barista pilot mechanic electrician plumber carpenter
  recruiter marketer salesperson strategist producer actor musician artist coach trainer
  secretary treasurer mayor governor senator minister ambassador captain sergeant
  vp svp evp avp cto ceo cfo coo cio ciso cpo cmo cro cso pm`.split(/\s+/),
);

const DEPARTMENTS = new Set(
  `engineering product products design sales marketing operations ops finance hr people research
  data security infrastructure platform growth support legal it technology customer success communications`.split(/\s+/),
);

/** True for "CTO", "VP of Engineering", "senior software engineer", "head of product". */
export function isRolePhrase(phrase: string): boolean {
  const words = phrase.trim().split(/\s+/);
  if (words.length === 0 || words.length > 6) return false;
  const ofAt = words.findIndex((w) => w.toLowerCase() === "of");
  const head = (ofAt > 0 ? words[ofAt - 1] : words[words.length - 1]) ?? "";
  return ROLE_HEADS.has(head.toLowerCase()) || /^C[A-Z]{1,3}O$/.test(head);
}

/** "of Engineering" belongs to the role; "of Acme" names the employer. */
export function isDepartment(phrase: string): boolean {
  const words = phrase.trim().toLowerCase().split(/\s+/);
  return words.length > 0 && words.every((w) => DEPARTMENTS.has(w) || w === "and" || w === "&");
}
