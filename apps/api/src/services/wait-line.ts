// In-process lines for work that must not all run at once: at most `slots` holders, the rest
// waiting in order of arrival, each for a bounded time. Past the bound, or when the line is full,
// the request is refused with "busy" and a Retry-After (503, which @recall/client retries), never
// a 409 a client following the docs would take as final. Waiting here holds no database
// connection, so a crowd of requests for one session or of direct writes cannot starve the pool
// that every other request needs.
import { DomainError } from "@recall/contracts";

export interface WaitLineOptions {
  /** How many may hold the line at once. */
  slots: number;
  /** How long one waits for a slot before it is refused. */
  maxWaitMs: number;
  /** How many may wait at once; one more is refused at once. */
  maxWaiting: number;
  /** Names what is busy in the refusal: "this session", "direct writes". */
  what: string;
  /** The refusal, when the caller words it itself (the same one its database wait gives). */
  refusal?: (why: string) => DomainError;
}

interface Waiter {
  admit(): void;
  timer: NodeJS.Timeout;
}

export class WaitLine {
  private holders = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly options: WaitLineOptions) {}

  /** Runs fn once a slot is free, in order of arrival; throws DomainError("busy") past the bound. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.enter();
    try {
      return await fn();
    } finally {
      this.leave();
    }
  }

  /** How many wait for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Nobody holds or waits: a keyed line may be dropped. */
  get idle(): boolean {
    return this.holders === 0 && this.waiting.length === 0;
  }

  private enter(): Promise<void> {
    if (this.holders < this.options.slots && this.waiting.length === 0) {
      this.holders++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.options.maxWaiting) return Promise.reject(this.busy("too many requests are waiting"));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        admit: () => {
          clearTimeout(waiter.timer);
          this.holders++;
          resolve();
        },
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(this.busy(`waited ${this.options.maxWaitMs} ms`));
        }, this.options.maxWaitMs),
      };
      this.waiting.push(waiter);
    });
  }

  private leave(): void {
    this.holders--;
    this.waiting.shift()?.admit();
  }

  private busy(why: string): DomainError {
    if (this.options.refusal) return this.options.refusal(why);
    const retryAfterSeconds = Math.max(1, Math.ceil(this.options.maxWaitMs / 4_000));
    return new DomainError("busy", `${this.options.what} is busy (${why}); retry after Retry-After seconds`, { retryAfterSeconds });
  }
}

/** One line per key (a session id), each one holder at a time; a line is dropped once idle. */
export class KeyedWaitLines {
  private readonly lines = new Map<string, WaitLine>();

  constructor(private readonly options: Omit<WaitLineOptions, "slots">) {}

  waiting(key: string): number {
    return this.lines.get(key)?.queued ?? 0;
  }

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    let line = this.lines.get(key);
    if (!line) {
      line = new WaitLine({ ...this.options, slots: 1 });
      this.lines.set(key, line);
    }
    try {
      return await line.run(fn);
    } finally {
      if (line.idle && this.lines.get(key) === line) this.lines.delete(key);
    }
  }
}
