// One dedicated Postgres connection per process that LISTENs on a few channels and fans
// each NOTIFY out to in-process handlers. Postgres delivers a notification only when the
// transaction that raised it commits, so a handler hears of work that is durable. A
// notification can still be missed (the connection drops and reconnects): callers keep
// a slow poll as a safety net, never as the way they normally learn of progress.
import { Client } from "pg";

export type NotificationHandler = (payload: string) => void;

export interface NotificationListenerOptions {
  databaseUrl: string;
  channels: readonly string[];
  /** Told about connection errors; the listener reconnects by itself. */
  onError?: (err: Error) => void;
  /** Called after every (re)connection: whatever was raised while disconnected was missed. */
  onConnected?: () => void;
}

export class NotificationListener {
  readonly #handlers = new Map<string, Set<NotificationHandler>>();
  #client: Client | undefined;
  #connecting: Promise<void> | undefined;
  #closed = false;
  #retryTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: NotificationListenerOptions) {}

  /**
   * Resolves once LISTEN is in place on every channel, or once the first try failed (then it
   * keeps trying in the background; until it succeeds, callers' fallback polls carry them).
   */
  start(): Promise<void> {
    this.#connecting ??= this.connect().catch((err: Error) => {
      this.options.onError?.(err);
      if (!this.#closed) this.reconnectSoon(250);
    });
    return this.#connecting;
  }

  on(channel: string, handler: NotificationHandler): () => void {
    if (!this.options.channels.includes(channel)) throw new Error(`not listening on ${channel}`);
    let set = this.#handlers.get(channel);
    if (!set) this.#handlers.set(channel, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  get connected(): boolean {
    return this.#client !== undefined;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.options.databaseUrl });
    client.on("notification", (msg) => this.dispatch(msg.channel, msg.payload ?? ""));
    client.on("error", (err) => this.lost(client, err));
    client.on("end", () => this.lost(client, new Error("notification connection ended")));
    await client.connect();
    for (const channel of this.options.channels) await client.query(`LISTEN ${quoteIdent(channel)}`);
    if (this.#closed) {
      await client.end();
      return;
    }
    this.#client = client;
    this.options.onConnected?.();
  }

  private dispatch(channel: string, payload: string): void {
    for (const handler of this.#handlers.get(channel) ?? []) handler(payload);
  }

  private lost(client: Client, err: Error): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    if (this.#closed) return;
    this.options.onError?.(err);
    client.end().catch(() => undefined);
    this.reconnectSoon(250);
  }

  private reconnectSoon(delayMs: number): void {
    this.#retryTimer = setTimeout(() => {
      this.connect().catch((err: Error) => {
        this.options.onError?.(err);
        if (!this.#closed) this.reconnectSoon(Math.min(delayMs * 2, 5_000));
      });
    }, delayMs);
    this.#retryTimer.unref();
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The channels the pipeline's triggers raise (see the notify_progress migration). */
export const CHANNELS = {
  /** payload: a turn id whose work moved towards an answer (truth maintained, or a stage dead). */
  turnProgress: "recall_turn_progress",
  /** payload: empty; outbox rows were committed. */
  outbox: "recall_outbox",
  /** payload: empty; webhook deliveries were written (the recall_webhook_emit function). */
  webhooks: "recall_webhooks",
} as const;
