// THE TIME RULE: which of two values of a single-valued fact is current, and when the
// other one ended. fact-origin.ts decides whether two values may be ordered at all (same
// origin, a direct write, or event times); this decides the order. README, "Facts":
// the table of cases; time-rule.test.ts: the same table as tests.
//
// A statement has an observation time (when it was said or written: a turn's occurred_at,
// else when it was received) and may date a beginning ("since March", "moved last week",
// "started in May", "as of June": the assertion's event time, which is then valid_from).
// A present-tense statement ("I live in Berlin") only observes; its valid_from is its
// observation, which says it held then, not that it began then.
//   1. Both values date their beginnings, differently: valid time orders them; the earlier
//      ends where the later begins (a chain: CTO since January, VP since February).
//   2. Otherwise the later statement is the last word. Statements are ordered by
//      observation time, then by their order in one session; a value stated later that
//      dates a change closes the earlier value at the change's date, even when that date
//      falls before the earlier value was observed ("I live in Berlin." then "I moved to
//      Paris last week."); one that only observes closes it at its observation. Exception:
//      an earlier statement dating a change still ahead of the later observation (a plan:
//      "I move to Paris in June", then in May "I live in Berlin") stays the newer value.
//   3. Where nothing orders the statements (the same instant, not one session's sequence),
//      the later-recorded value is current and the pair is reported as uncertain.
// Imports with past occurred_at follow the same rule: observation time, not arrival, orders them.

export interface Timing {
  validFrom: Date;
  recordedAt: Date;
  /** valid_from comes from the text (a dated beginning), not from the observation. */
  startStated: boolean;
  /** When the source said or wrote it. */
  observedAt: Date;
  /** A turn's place in its session, which orders statements made at one instant. */
  sequence?: { sessionId: string; seq: number };
}

export interface Succession<T> {
  older: T;
  newer: T;
  /** The older value's valid_to. */
  closeAt: Date;
  /** Nothing but recording order told them apart. */
  uncertain: boolean;
}

export function succession<T>(a: T, ta: Timing, b: T, tb: Timing): Succession<T> {
  if (ta.startStated && tb.startStated && ta.validFrom.getTime() !== tb.validFrom.getTime()) {
    const [older, newer, tn] = ta.validFrom < tb.validFrom ? [a, b, tb] : [b, a, ta];
    return { older, newer, closeAt: tn.validFrom, uncertain: false };
  }
  const order = statedOrder(ta, tb);
  const aFirst = order !== 0 ? order < 0 : ta.recordedAt.getTime() <= tb.recordedAt.getTime();
  const [first, tf, later, tl] = aFirst ? [a, ta, b, tb] : [b, tb, a, ta];
  const uncertain = order === 0;
  if (tl.startStated) return { older: first, newer: later, closeAt: tl.validFrom, uncertain };
  if (tf.startStated && tf.validFrom > tl.observedAt) return { older: later, newer: first, closeAt: tf.validFrom, uncertain };
  return { older: first, newer: later, closeAt: tl.observedAt, uncertain };
}

/** Negative when `a` was stated first, positive when `b` was, 0 when nothing tells. */
function statedOrder(a: Timing, b: Timing): number {
  const byObservation = a.observedAt.getTime() - b.observedAt.getTime();
  if (byObservation !== 0) return byObservation;
  if (a.sequence && b.sequence && a.sequence.sessionId === b.sequence.sessionId) return a.sequence.seq - b.sequence.seq;
  return 0;
}
