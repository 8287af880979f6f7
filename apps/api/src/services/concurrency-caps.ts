// Caps on long work one API process runs at once (exports, imports): in all, and per context. Unlike a WaitLine
// nothing waits here: an export or import can last minutes, so one past a cap is refused at once with 429 and a
// Retry-After naming which cap it met, and the caller comes back later. The caps are per process because what they
// protect is: the process's pools and sockets.
import { DomainError } from "@recall/contracts";

export interface ConcurrencyCapOptions {
  /** What is counted, in the plural ("exports"): it names the refusal and its problem type. */
  what: string;
  /** At most this many at once in this process, */
  total: number;
  /** and at most this many of one context. */
  perContext: number;
  /** The settings that hold the two caps, named in the refusal so an operator knows what to raise. */
  settings: { total: string; perContext: string };
  /** What the refusal's Retry-After asks for. */
  retryAfterSeconds: number;
}

export class ConcurrencyCap {
  private running = 0;
  private readonly byContext = new Map<string, number>();

  constructor(private readonly options: ConcurrencyCapOptions) {}

  /** Runs fn holding one of the slots, or throws DomainError("too_many") at once when a cap is reached. */
  async run<T>(contextId: string, fn: () => Promise<T>): Promise<T> {
    this.enter(contextId);
    try {
      return await fn();
    } finally {
      this.leave(contextId);
    }
  }

  /** How many run now, in all. */
  get inUse(): number {
    return this.running;
  }

  private enter(contextId: string): void {
    const { total, perContext } = this.options;
    const mine = this.byContext.get(contextId) ?? 0;
    // The context's own cap is named first: it is the one the caller can do something about.
    if (mine >= perContext) throw this.refusal("context");
    if (this.running >= total) throw this.refusal("total");
    this.running++;
    this.byContext.set(contextId, mine + 1);
  }

  private leave(contextId: string): void {
    this.running--;
    const mine = (this.byContext.get(contextId) ?? 1) - 1;
    if (mine > 0) this.byContext.set(contextId, mine);
    else this.byContext.delete(contextId);
  }

  private refusal(which: "context" | "total"): DomainError {
    const { what, total, perContext, settings, retryAfterSeconds } = this.options;
    const message =
      which === "context"
        ? `this context already has ${perContext} ${what} running (${settings.perContext}); retry after Retry-After seconds`
        : `this server already runs ${total} ${what} (${settings.total}); retry after Retry-After seconds`;
    const problem = which === "context" ? `too_many_context_${what}` : `too_many_${what}`;
    return new DomainError("too_many", message, { retryAfterSeconds, problem });
  }
}
