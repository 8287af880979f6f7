// The hand-written surface: one method per thing a person does with Recall, each a typed
// call through openapi-fetch (paths and shapes from the generated types) and the transport
// (retries, idempotency keys, timeouts, abort). `raw` reaches any route, new ones included.
import createClient, { type Client } from "openapi-fetch";
import { RecallError } from "./errors.js";
import type { paths } from "./generated/openapi.js";
import { DEFAULT_RETRY, type RetryPolicy } from "./retry-policy.js";
import { callFetch, type CallOptions, type TransportSettings } from "./transport.js";
import { waitForDocument, type WaitOptions } from "./document-wait.js";
import { withEnvDefaults } from "./env-defaults.js";
import type * as T from "./types.js";

export interface RecallOptions {
  /** Where the API listens, e.g. http://127.0.0.1:8080; default RECALL_URL from the environment. */
  baseUrl?: string;
  /** The context (tenant) every memory call is about; needed with `apiKey` for all but admin calls. Default RECALL_CONTEXT_ID. */
  contextId?: string;
  /** The context's API key (sent as the API-KEY header); default RECALL_API_KEY. */
  apiKey?: string;
  /** The server's ADMIN_API_KEY, for `admin` calls (contexts and keys). */
  adminKey?: string;
  /** Per attempt; default 60 s (a turn waits up to the server's TURN_TIMEOUT_MS, 30 s by default). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Another fetch (a proxy agent, a test's); default globalThis.fetch. */
  fetch?: typeof globalThis.fetch;
  /**
   * Send the consistency token of the last write this client made with each later call (default true), so that a read
   * right after a write sees it where the server reads from replicas (docs/operating.md, "Read replicas").
   */
  readYourWrites?: boolean;
}

type Answer<D> = { data?: D; error?: unknown; response: Response };

export class RecallClient {
  /** The typed openapi-fetch client with this client's transport; the context's API-KEY is sent when set. */
  readonly raw: Client<paths>;
  readonly contextId: string | undefined;
  private readonly settings: TransportSettings;
  private readonly options: RecallOptions & { baseUrl: string };

  /** Every option may be left out where its variable is set: RECALL_URL, RECALL_CONTEXT_ID, RECALL_API_KEY. */
  constructor(given: RecallOptions = {}) {
    const options = withEnvDefaults(given);
    this.options = options;
    this.contextId = options.contextId;
    this.settings = {
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      timeoutMs: options.timeoutMs ?? 60_000,
      retry: { ...DEFAULT_RETRY, ...options.retry },
      consistency: options.readYourWrites === false ? undefined : {},
    };
    this.raw = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      headers: options.apiKey ? { "API-KEY": options.apiKey } : {},
      fetch: callFetch(this.settings),
    });
  }

  /** The same server and settings, for another context (e.g. one just created with `admin.contexts.create`). */
  withContext(contextId: string, apiKey: string): RecallClient {
    return new RecallClient({ ...this.options, contextId, apiKey });
  }

  readonly sessions = {
    create: (body: { metadata?: Record<string, unknown> } = {}, o?: CallOptions): Promise<T.SessionCreated> =>
      this.call(o, (init) => this.raw.POST("/api/v1/{contextId}/sessions", { ...init, params: { path: this.ctx() }, body })),
  };

  readonly turns = {
    /** Answers once the turn's extraction is committed (or failed); `extraction.status` is `pending` if it took longer than the server waits. */
    post: (sessionId: string, body: T.TurnInput, o?: CallOptions): Promise<T.TurnResult> =>
      this.call(o, (init) =>
        this.raw.POST("/api/v1/{contextId}/sessions/{sessionId}/turns", { ...init, params: { path: { ...this.ctx(), sessionId } }, body }),
      ),
    list: (sessionId: string, query: { scope?: T.Scope } & T.Page = {}, o?: CallOptions): Promise<T.TurnPage> =>
      this.call(o, (init) =>
        this.raw.GET("/api/v1/{contextId}/sessions/{sessionId}/turns", { ...init, params: { path: { ...this.ctx(), sessionId }, query } }),
      ),
    /** One turn's whole content: where a `query` hit with `truncated: true` is read in full. */
    get: (sessionId: string, turnId: string, query: { scope?: T.Scope } = {}, o?: CallOptions): Promise<T.Turn> =>
      this.call(o, (init) =>
        this.raw.GET("/api/v1/{contextId}/sessions/{sessionId}/turns/{turnId}", {
          ...init,
          params: { path: { ...this.ctx(), sessionId, turnId }, query },
        }),
      ),
  };

  /** Entities in the reader's scope with their current facts, and the active instructions: fetch it before each system prompt. */
  profile(scope: T.Scope, page: T.Page = {}, o?: CallOptions): Promise<T.Profile> {
    return this.call(o, (init) =>
      this.raw.GET("/api/v1/{contextId}/profile", { ...init, params: { path: this.ctx(), query: { scope, ...page } } }),
    );
  }

  /** Facts true at `as_of` as known at `recorded_as_of`, active instructions and open unknowns. */
  state(body: T.StateInput, o?: CallOptions): Promise<T.State> {
    return this.call(o, (init) => this.raw.POST("/api/v1/{contextId}/state", { ...init, params: { path: this.ctx() }, body }));
  }

  /** Search facts, instructions, turns and document text; each result links to its source. */
  query(body: T.QueryInput, o?: CallOptions): Promise<T.QueryResult> {
    return this.call(o, (init) => this.raw.POST("/api/v1/{contextId}/query", { ...init, params: { path: this.ctx() }, body }));
  }

  /** A system-prompt block for a message within `max_tokens`: instructions, relevant facts, open questions, excerpts. */
  context(body: T.ContextPackInput, o?: CallOptions): Promise<T.ContextPack> {
    return this.call(o, (init) => this.raw.POST("/api/v1/{contextId}/context", { ...init, params: { path: this.ctx() }, body }));
  }

  readonly facts = {
    write: (body: T.FactWriteInput, o?: CallOptions): Promise<T.FactWriteResult> =>
      this.call(o, (init) => this.raw.POST("/api/v1/{contextId}/facts", { ...init, params: { path: this.ctx() }, body })),
    /** From an attribute, relation, assertion or instruction id back to the bytes it came from. */
    provenance: (factId: string, query: { scope?: T.Scope } = {}, o?: CallOptions): Promise<T.Provenance> =>
      this.call(o, (init) =>
        this.raw.GET("/api/v1/{contextId}/facts/{factId}/provenance", { ...init, params: { path: { ...this.ctx(), factId }, query } }),
      ),
  };

  readonly entities = {
    history: (entityId: string, query: { scope?: T.Scope } & T.Page = {}, o?: CallOptions): Promise<T.EntityHistory> =>
      this.call(o, (init) =>
        this.raw.GET("/api/v1/{contextId}/entities/{entityId}/history", { ...init, params: { path: { ...this.ctx(), entityId }, query } }),
      ),
  };

  readonly documents = {
    /** Accepted at once (202); follow it with `status` or `waitUntilCommitted`. */
    post: (body: T.DocumentInput, o?: CallOptions): Promise<T.DocumentAccepted> =>
      this.call(o, (init) => this.raw.POST("/api/v1/{contextId}/documents", { ...init, params: { path: this.ctx() }, body })),
    status: (documentId: string, o?: CallOptions): Promise<T.DocumentStatus> =>
      this.call(o, (init) =>
        this.raw.GET("/api/v1/{contextId}/documents/{documentId}/status", { ...init, params: { path: { ...this.ctx(), documentId } } }),
      ),
    /** A range of the document's text by UTF-8 byte offsets (at most 150,000 bytes an answer; `next_start_byte` continues). */
    text: (
      documentId: string,
      query: { scope?: T.Scope; start_byte?: number; end_byte?: number } = {},
      o?: CallOptions,
    ): Promise<T.DocumentText> =>
      this.call(o, (init) =>
        this.raw.GET("/api/v1/{contextId}/documents/{documentId}/text", {
          ...init,
          params: { path: { ...this.ctx(), documentId }, query },
        }),
      ),
    /** Polls the status until `committed`; throws RecallPipelineError when it failed, RecallTimeoutError after `timeoutMs`. */
    waitUntilCommitted: (documentId: string, options: WaitOptions = {}): Promise<T.DocumentStatus> =>
      waitForDocument((o) => this.documents.status(documentId, o), documentId, options),
  };

  /** Delete by source: retract everything derived from a document, a turn or a direct write (nothing is deleted). */
  readonly retractions = {
    document: (documentId: string, body: { reason: string }, o?: CallOptions): Promise<T.Retraction> =>
      this.call(o, (init) =>
        this.raw.POST("/api/v1/{contextId}/documents/{documentId}/retract", {
          ...init,
          params: { path: { ...this.ctx(), documentId } },
          body,
        }),
      ),
    turn: (turnId: string, body: { reason: string }, o?: CallOptions): Promise<T.Retraction> =>
      this.call(o, (init) =>
        this.raw.POST("/api/v1/{contextId}/turns/{turnId}/retract", { ...init, params: { path: { ...this.ctx(), turnId } }, body }),
      ),
    factWrite: (factWriteId: string, body: { reason: string }, o?: CallOptions): Promise<T.Retraction> =>
      this.call(o, (init) =>
        this.raw.POST("/api/v1/{contextId}/fact-writes/{factWriteId}/retract", {
          ...init,
          params: { path: { ...this.ctx(), factWriteId } },
          body,
        }),
      ),
  };

  /** Erasure: the inputs' text deleted for good from every table, answered with a receipt (docs/erasure.md). */
  readonly erasures = {
    create: (body: T.ErasureInput, o?: CallOptions): Promise<T.Erasure> =>
      this.call(o, (init) => this.raw.POST("/api/v1/{contextId}/erasures", { ...init, params: { path: this.ctx() }, body })),
    get: (erasureId: string, o?: CallOptions): Promise<T.Erasure> =>
      this.call(o, (init) =>
        this.raw.GET("/api/v1/{contextId}/erasures/{erasureId}", { ...init, params: { path: { ...this.ctx(), erasureId } } }),
      ),
  };

  readonly workItems = {
    list: (query: T.WorkItemQuery = {}, o?: CallOptions): Promise<T.WorkItemPage> =>
      this.call(o, (init) => this.raw.GET("/api/v1/{contextId}/work-items", { ...init, params: { path: this.ctx(), query } })),
    /** Runs a failed or dead work item again from its kept input (409 when it is neither). */
    retry: (workItemId: string, o?: CallOptions): Promise<T.WorkItem> =>
      this.call(o, (init) =>
        this.raw.POST("/api/v1/{contextId}/work-items/{workItemId}/retry", { ...init, params: { path: { ...this.ctx(), workItemId } } }),
      ),
  };

  /** Model calls, tokens and estimated cost of this context over a range (default the last 7 days), by day, stage or model. */
  usage(query: T.UsageQuery = {}, o?: CallOptions): Promise<T.Usage> {
    return this.call(o, (init) => this.raw.GET("/api/v1/{contextId}/usage", { ...init, params: { path: this.ctx(), query } }));
  }

  /** Export and import of this context as NDJSON (docs/export-format.md). */
  readonly portability = {
    /** The export as a stream of bytes, read as it arrives (pipe it to a file); a complete one ends with its `end` line. */
    exportStream: (query: T.ExportQuery = {}, o?: CallOptions): Promise<ReadableStream<Uint8Array>> =>
      this.call(o, (init) =>
        this.raw.GET("/api/v1/{contextId}/export", { ...init, params: { path: this.ctx(), query }, parseAs: "stream" }),
      ).then((stream) => stream as ReadableStream<Uint8Array>),
    /** The whole export as one string: for small contexts. */
    exportText: (query: T.ExportQuery = {}, o?: CallOptions): Promise<string> =>
      this.call(o, (init) => this.raw.GET("/api/v1/{contextId}/export", { ...init, params: { path: this.ctx(), query }, parseAs: "text" })),
    /** Imports an export into this context (empty, or the exported one): ids remapped; the same export again creates nothing. */
    import: (ndjson: string | Uint8Array, o?: CallOptions): Promise<T.ImportResult> =>
      this.call(o, (init) =>
        this.raw.POST("/api/v1/{contextId}/import", {
          ...init,
          params: { path: this.ctx() },
          headers: { "Content-Type": "application/x-ndjson" },
          body: typeof ndjson === "string" ? ndjson : new TextDecoder().decode(ndjson),
          bodySerializer: (body: string) => body,
        }),
      ),
    /**
     * Imports an export read from a stream (a file: `Readable.toWeb(fs.createReadStream(path))`; another server's
     * `exportStream()`), sent as it is read, so a large export is never held whole. A stream is sent once, with no
     * retry; sending the same export again is safe (an import is idempotent by content). No timeout unless given.
     */
    importStream: async (body: ReadableStream<Uint8Array>, o: Omit<CallOptions, "retry"> = {}): Promise<T.ImportResult> => {
      const { contextId } = this.ctx();
      const url = `${this.options.baseUrl.replace(/\/+$/, "")}/api/v1/${encodeURIComponent(contextId)}/import`;
      const signals = [o.signal, o.timeoutMs !== undefined ? AbortSignal.timeout(o.timeoutMs) : undefined].filter((s) => s !== undefined);
      const init: RequestInit & { duplex: "half" } = {
        method: "POST",
        headers: {
          "API-KEY": this.options.apiKey ?? "",
          "Content-Type": "application/x-ndjson",
          "Idempotency-Key": o.idempotencyKey ?? crypto.randomUUID(),
        },
        body,
        duplex: "half",
        signal: signals.length > 0 ? AbortSignal.any(signals) : undefined,
      };
      const response = await this.settings.fetch(url, init);
      const answer: unknown = await response.json().catch(() => undefined);
      if (!response.ok) throw new RecallError(response, "POST", answer);
      return answer as T.ImportResult;
    },
  };

  /** Signed pushes of this context's events (docs/webhooks.md); the secret is answered only by `create` and `rotateSecret`. */
  readonly webhooks = {
    create: (body: T.WebhookInput, o?: CallOptions): Promise<T.WebhookCreated> =>
      this.call(o, (init) => this.raw.POST("/api/v1/{contextId}/webhooks", { ...init, params: { path: this.ctx() }, body })),
    list: (o?: CallOptions): Promise<T.WebhookList> =>
      this.call(o, (init) => this.raw.GET("/api/v1/{contextId}/webhooks", { ...init, params: { path: this.ctx() } })),
    get: (webhookId: string, o?: CallOptions): Promise<T.Webhook> =>
      this.call(o, (init) =>
        this.raw.GET("/api/v1/{contextId}/webhooks/{webhookId}", { ...init, params: { path: { ...this.ctx(), webhookId } } }),
      ),
    delete: (webhookId: string, o?: CallOptions): Promise<T.Webhook> =>
      this.call(o, (init) =>
        this.raw.DELETE("/api/v1/{contextId}/webhooks/{webhookId}", { ...init, params: { path: { ...this.ctx(), webhookId } } }),
      ),
    /** A new secret; `keep_old_for_seconds` (at most 7 days) keeps the old one signing beside it meanwhile. */
    rotateSecret: (webhookId: string, body: { keep_old_for_seconds?: number } = {}, o?: CallOptions): Promise<T.WebhookCreated> =>
      this.call(o, (init) =>
        this.raw.POST("/api/v1/{contextId}/webhooks/{webhookId}/rotate-secret", {
          ...init,
          params: { path: { ...this.ctx(), webhookId } },
          body,
        }),
      ),
    /** Takes events again on a webhook disabled for failing; its pending deliveries are tried at once. */
    enable: (webhookId: string, o?: CallOptions): Promise<T.Webhook> =>
      this.call(o, (init) =>
        this.raw.POST("/api/v1/{contextId}/webhooks/{webhookId}/enable", {
          ...init,
          params: { path: { ...this.ctx(), webhookId } },
        }),
      ),
    deliveries: (webhookId: string, page: T.Page = {}, o?: CallOptions): Promise<T.WebhookDeliveryPage> =>
      this.call(o, (init) =>
        this.raw.GET("/api/v1/{contextId}/webhooks/{webhookId}/deliveries", {
          ...init,
          params: { path: { ...this.ctx(), webhookId }, query: page },
        }),
      ),
    /** Sends the delivery again with the same event id (409 when the webhook is disabled). */
    redeliver: (webhookId: string, deliveryId: string, o?: CallOptions): Promise<T.WebhookDelivery> =>
      this.call(o, (init) =>
        this.raw.POST("/api/v1/{contextId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver", {
          ...init,
          params: { path: { ...this.ctx(), webhookId, deliveryId } },
        }),
      ),
  };

  /** Review before commit (docs/review.md): candidates a context with `config.review` holds until a person decides. */
  readonly reviews = {
    /** Held candidates, oldest first (`status` pending by default), each with its quote, span and source. */
    list: (query: T.ReviewQuery = {}, o?: CallOptions): Promise<T.ReviewPage> =>
      this.call(o, (init) => this.raw.GET("/api/v1/{contextId}/reviews", { ...init, params: { path: this.ctx(), query } })),
    get: (reviewId: string, o?: CallOptions): Promise<T.Review> =>
      this.call(o, (init) =>
        this.raw.GET("/api/v1/{contextId}/reviews/{reviewId}", { ...init, params: { path: { ...this.ctx(), reviewId } } }),
      ),
    /** Answered `approved` (202); a worker commits it. `edit` changes fields first (null removes an optional one); 409 when rejected or withdrawn. */
    approve: (reviewId: string, body: T.ReviewApproval = {}, o?: CallOptions): Promise<T.Review> =>
      this.call(o, (init) =>
        this.raw.POST("/api/v1/{contextId}/reviews/{reviewId}/approve", {
          ...init,
          params: { path: { ...this.ctx(), reviewId } },
          body,
        }),
      ),
    /** Recorded, never committed; 409 when approved or withdrawn. */
    reject: (reviewId: string, body: T.ReviewRejection = {}, o?: CallOptions): Promise<T.Review> =>
      this.call(o, (init) =>
        this.raw.POST("/api/v1/{contextId}/reviews/{reviewId}/reject", {
          ...init,
          params: { path: { ...this.ctx(), reviewId } },
          body,
        }),
      ),
    /** Named reviews (`review_ids`) or the pending ones matching `filter`, at most 500 a call (`remaining` says how many more). */
    bulkApprove: (body: T.ReviewBulkInput, o?: CallOptions): Promise<T.ReviewBulkResult> =>
      this.call(o, (init) => this.raw.POST("/api/v1/{contextId}/reviews/bulk-approve", { ...init, params: { path: this.ctx() }, body })),
    bulkReject: (body: T.ReviewBulkInput, o?: CallOptions): Promise<T.ReviewBulkResult> =>
      this.call(o, (init) => this.raw.POST("/api/v1/{contextId}/reviews/bulk-reject", { ...init, params: { path: this.ctx() }, body })),
  };

  /** Calls with the server's ADMIN_API_KEY (`adminKey`). */
  readonly admin = {
    /** Model spend across contexts (`group_by` may also be `context`). */
    usage: (query: T.AdminUsageQuery = {}, o?: CallOptions): Promise<T.Usage> =>
      this.call(o, (init) => this.raw.GET("/api/v1/admin/usage", { ...init, headers: this.adminHeaders(), params: { query } })),
    contexts: {
      /** A new context and its first API key (shown once). */
      create: (body: T.ContextInput, o?: CallOptions): Promise<T.ContextCreated> =>
        this.call(o, (init) => this.raw.POST("/api/v1/contexts", { ...init, headers: this.adminHeaders(), body })),
    },
    erasures: {
      /** The whole context erased: every input, all memory, its keys and the context itself. */
      eraseContext: (contextId: string, o?: CallOptions): Promise<T.Erasure> =>
        this.call(o, (init) =>
          this.raw.POST("/api/v1/contexts/{contextId}/erasure", { ...init, headers: this.adminHeaders(), params: { path: { contextId } } }),
        ),
      get: (contextId: string, erasureId: string, o?: CallOptions): Promise<T.Erasure> =>
        this.call(o, (init) =>
          this.raw.GET("/api/v1/contexts/{contextId}/erasures/{erasureId}", {
            ...init,
            headers: this.adminHeaders(),
            params: { path: { contextId, erasureId } },
          }),
        ),
    },
    keys: {
      list: (contextId: string, page: T.Page = {}, o?: CallOptions): Promise<T.KeyPage> =>
        this.call(o, (init) =>
          this.raw.GET("/api/v1/contexts/{contextId}/keys", {
            ...init,
            headers: this.adminHeaders(),
            params: { path: { contextId }, query: page },
          }),
        ),
      issue: (contextId: string, o?: CallOptions): Promise<T.IssuedKey> =>
        this.call(o, (init) =>
          this.raw.POST("/api/v1/contexts/{contextId}/keys", { ...init, headers: this.adminHeaders(), params: { path: { contextId } } }),
        ),
      /** A new key; the old one is revoked unless `keep_old`. */
      rotate: (contextId: string, keyId: string, body: { keep_old?: boolean } = {}, o?: CallOptions): Promise<T.RotatedKey> =>
        this.call(o, (init) =>
          this.raw.POST("/api/v1/contexts/{contextId}/keys/{keyId}/rotate", {
            ...init,
            headers: this.adminHeaders(),
            params: { path: { contextId, keyId } },
            body,
          }),
        ),
      revoke: (contextId: string, keyId: string, o?: CallOptions): Promise<T.RevokedKey> =>
        this.call(o, (init) =>
          this.raw.DELETE("/api/v1/contexts/{contextId}/keys/{keyId}", {
            ...init,
            headers: this.adminHeaders(),
            params: { path: { contextId, keyId } },
          }),
        ),
    },
  };

  /** GET /healthz: the process is up. */
  health(o?: CallOptions) {
    return this.call(o, (init) => this.raw.GET("/healthz", init));
  }

  /** Sends one call through the transport and returns its 2xx body, or throws RecallError with the problem details. */
  private async call<D>(o: CallOptions | undefined, send: (init: { fetch: (r: Request) => Promise<Response> }) => Promise<Answer<D>>) {
    const transport = callFetch(this.settings, o);
    let method = "";
    const { data, error, response } = await send({
      fetch: (request) => {
        method = request.method;
        return transport(request);
      },
    });
    if (!response.ok) throw new RecallError(response, method, error);
    return data as D;
  }

  private ctx(): { contextId: string } {
    if (!this.contextId || !this.options.apiKey)
      throw new Error("this call needs a context: pass contextId and apiKey, set RECALL_CONTEXT_ID and RECALL_API_KEY, or use withContext");
    return { contextId: this.contextId };
  }

  private adminHeaders(): Record<string, string> {
    if (!this.options.adminKey) throw new Error("admin calls need adminKey (the server's ADMIN_API_KEY)");
    return { Authorization: `Bearer ${this.options.adminKey}` };
  }
}
