// The type guard of entity resolution, as pure rules over the entities a name matched.
//
// A name matches an entity by identity key or alias. Reuse is type-guarded: the types
// must be equal, or one side is `topic` (the wildcard, which upgrades on reuse). When
// exactly one matching entity is compatible it is reused. Anything else is contested:
// two or more compatible entities ("Jordan" when two Jordans are known) is ambiguous;
// matches that are all of another type ("apple" the fruit when Apple the company is
// known) are type-incompatible. Contested names go to a disambiguator where one is
// configured, and otherwise become a new entity: a duplicate can be merged later, a
// false merge silently mixes two things' facts.
import type { Entity } from "@recall/db";
import { typesCompatible } from "../core/identity";
import { sameScope, scopeVisible } from "../core/scope";

export type MatchOutcome =
  | { kind: "none" }
  | { kind: "unique"; entity: Entity }
  | { kind: "contested"; reason: "ambiguous" | "type_incompatible"; matches: Entity[] };

export function classifyMatches(matches: readonly Entity[], key: string, type: string): MatchOutcome {
  if (matches.length === 0) return { kind: "none" };
  const compatible = matches.filter((e) => typesCompatible(e.type, type));
  if (compatible.length === 1) return { kind: "unique", entity: compatible[0]! };
  if (compatible.length === 0) return { kind: "contested", reason: "type_incompatible", matches: [...matches] };
  // A name and type that fit one entity exactly (same key, same type) is not ambiguous
  // just because a looser match (an alias, or a topic of the same name) also exists.
  const exact = compatible.filter((e) => e.identityKey === key && e.type === type);
  if (exact.length === 1) return { kind: "unique", entity: exact[0]! };
  return { kind: "contested", reason: "ambiguous", matches: compatible };
}

/**
 * Whether another source naming an entity changes the scope it is shown in to the writer's. A writer whose scope is a
 * subset of the entity's (an org-wide document naming someone first met in alice's chat) makes it visible to everyone
 * that writer's facts are visible to; incomparable scopes (alice's chat, then bob's) leave it as it was, because
 * widening to what they share would show the name to readers neither source was visible to.
 */
export function widensScope(entityScope: readonly string[], writerScope: readonly string[]): boolean {
  return scopeVisible(writerScope, entityScope) && !sameScope(writerScope, entityScope);
}
