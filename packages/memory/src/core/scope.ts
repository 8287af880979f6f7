// The scope rule, defined once for the write path and the read path.
//
// A scope is a set of key=value pairs (org=acme, user=alice). Something written in
// scope W is visible to a reader asking in scope R exactly when W ⊆ R: every pair it
// was written with is one the reader has. So a fact written in {org=acme} is seen by
// {org=acme, user=alice} and by {org=acme, user=bob}; one written in
// {org=acme, user=alice} is seen by alice's reader only; an unscoped fact by everyone.
// In SQL a row names its scope's set (core/scope-sets.ts) and the rule is read/sql-fragments.ts `visibleTo`.
//
// On the write path: an instruction is revoked only by a turn that can see it
// (instruction.scope ⊆ turn.scope), and a newer value supersedes an older one only
// when both were written in the same scope, so one user's correction never closes a
// fact other readers still see. On the read path, a reader who sees both gets the newer
// narrower-scope value of a single-valued fact (read/fact-query.ts, notShadowed).

export type Scope = readonly string[];

export function normaliseScope(scope: Scope): string[] {
  return [...new Set(scope.map((s) => s.trim()).filter(Boolean))].sort();
}

export function scopeVisible(written: Scope, reader: Scope): boolean {
  const have = new Set(reader);
  return written.every((pair) => have.has(pair));
}

export function sameScope(a: Scope, b: Scope): boolean {
  const x = normaliseScope(a);
  const y = normaliseScope(b);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** `scope[org]=acme&scope[user]=alice` (express parses it to an object) → ["org=acme", "user=alice"]. */
export function scopeFromQuery(value: unknown): string[] {
  if (value === undefined) return [];
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return normaliseScope(Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}=${String(v)}`));
  }
  const list = Array.isArray(value) ? value : [value];
  return normaliseScope(list.map(String));
}
