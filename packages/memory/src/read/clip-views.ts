// The views /state and /profile answer, with their names and values clipped to the read caps
// (answer-bounds.ts). Rows stored before the write caps may hold values of any length; a view
// that was cut says `truncated: true`, and the whole value stays readable where it is read one
// at a time (an entity's history, a fact's provenance).
import { READ_LIMITS, clipped, countWithin } from "./answer-bounds";
import type { EntitySummary, FactView, InstructionView, ListPosition, Page, UnknownView } from "./read-types";

/** Set only on a view that was cut, so answers about ordinary data read as before. */
export interface Truncation {
  truncated?: true;
}

/** Clips each named field; `cut` records whether any was. */
export class Clipper {
  cut = false;
  name(text: string): string {
    return this.take(text, READ_LIMITS.nameChars);
  }
  value(text: string): string {
    return this.take(text, READ_LIMITS.valueChars);
  }
  entity<E extends EntitySummary>(e: E): E {
    return { ...e, name: this.name(e.name), type: this.name(e.type) };
  }
  flagged<T extends object>(view: T): T & Truncation {
    return this.cut ? { ...view, truncated: true } : view;
  }
  private take(text: string, max: number): string {
    const c = clipped(text, max);
    this.cut ||= c.truncated;
    return c.text;
  }
}

export function clipFact(f: FactView): FactView & Truncation {
  const c = new Clipper();
  if (f.kind === "attribute") return c.flagged({ ...f, entity: c.entity(f.entity), key: c.name(f.key), value: c.value(f.value) });
  return c.flagged({ ...f, subject: c.entity(f.subject), predicate: c.name(f.predicate), object: c.entity(f.object) });
}

export function clipInstruction(i: InstructionView): InstructionView & Truncation {
  const c = new Clipper();
  return c.flagged({ ...i, label: c.name(i.label), description: c.value(i.description) });
}

export function clipUnknown(u: UnknownView): UnknownView & Truncation {
  const c = new Clipper();
  return c.flagged({ ...u, about: c.value(u.about), reason: c.value(u.reason), key: u.key === null ? null : c.name(u.key) });
}

/**
 * The page cut to the items that fit in `budget` bytes; when it was cut, the next page starts
 * after the last item kept, so a client following `next_cursor` misses nothing.
 */
export function pageWithin<T extends { id: string }>(page: Page<T>, budget: number, keyOf: (item: T) => string | number): Page<T> {
  const n = countWithin(page.items, budget);
  if (n === page.items.length) return page;
  const last = page.items[n - 1]!;
  return { items: page.items.slice(0, n), next: { k: keyOf(last), id: last.id } satisfies ListPosition };
}

/** A list with no cursor of its own (the active instructions, the open unknowns) cut to `budget` bytes. */
export function listWithin<T>(items: T[], budget: number): { items: T[]; cut: boolean } {
  const n = items.length === 0 ? 0 : countWithin(items, budget);
  return { items: items.slice(0, n), cut: n < items.length };
}
