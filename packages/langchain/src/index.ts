// Recall memory for LangChain.js (@langchain/core): a retriever over POST /query (facts, instructions, past turns
// and document passages, each with a link to its source), and a chat message history kept as the turns of a Recall
// session, so what a chain says is remembered, extracted and read back by the next run.
import { BaseListChatMessageHistory } from "@langchain/core/chat_history";
import { Document } from "@langchain/core/documents";
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { BaseRetriever, type BaseRetrieverInput } from "@langchain/core/retrievers";
import { RecallClient, type QueryInput, type Scope } from "@recall/client";
import { softly, type Degrade } from "./degrade.js";

export { RecallContextRetriever, type RecallContextRetrieverInput } from "./context-retriever.js";
export type { Degrade } from "./degrade.js";

type Kind = NonNullable<QueryInput["kinds"]>[number];

export interface RecallRetrieverInput extends BaseRetrieverInput {
  /** Default: a client for RECALL_URL, RECALL_CONTEXT_ID and RECALL_API_KEY. */
  client?: RecallClient;
  /** Whose memory: only what this scope may see is returned. */
  scope: Scope;
  /** At most this many documents (default 8; the service caps a page at 100). */
  k?: number;
  /** Only these kinds of result (default: all). */
  kinds?: Kind[];
}

/** Each result of /query as a Document: its text, and in `metadata` its kind, score and the link to its source. */
export class RecallRetriever extends BaseRetriever {
  static override lc_name() {
    return "RecallRetriever";
  }
  override lc_namespace = ["recall", "retrievers"];
  private readonly client: RecallClient;
  private readonly scope: Scope;
  private readonly k: number;
  private readonly kinds: Kind[] | undefined;

  constructor(input: RecallRetrieverInput) {
    super(input);
    this.client = input.client ?? new RecallClient();
    this.scope = input.scope;
    this.k = input.k ?? 8;
    this.kinds = input.kinds;
  }

  override async _getRelevantDocuments(query: string): Promise<Document[]> {
    const answer = await this.client.query({ query, scope: this.scope, limit: this.k, ...(this.kinds ? { kinds: this.kinds } : {}) });
    return answer.results.map(
      (r) =>
        new Document({
          pageContent: r.text,
          metadata: { kind: r.kind, score: r.score, link: r.link },
          id: `${r.kind}:${r.link.turn_id ?? ""}`,
        }),
    );
  }
}

export interface RecallChatHistoryInput extends Degrade {
  /** Default: a client for RECALL_URL, RECALL_CONTEXT_ID and RECALL_API_KEY. */
  client?: RecallClient;
  /** The Recall session that holds this conversation: one per conversation, kept between runs. */
  sessionId: string;
  /** The scope each message is written under and read back with. */
  scope: Scope;
  /** The user's name, so "I" and "my" in their messages are theirs. */
  userName?: string;
}

const ROLE: Record<string, "user" | "assistant" | "system"> = { human: "user", ai: "assistant", system: "system" };

/**
 * A conversation's messages as the turns of a Recall session. Adding a message posts a turn (its facts and standing
 * instructions are extracted and committed, and /context can recall them later); reading lists the session's turns.
 * `clear` is not offered: memory is retracted or erased on purpose, with a reason (docs/erasure.md).
 */
export class RecallChatMessageHistory extends BaseListChatMessageHistory {
  override lc_namespace = ["recall", "chat_history"];
  private readonly options: RecallChatHistoryInput;
  private readonly client: RecallClient;

  constructor(options: RecallChatHistoryInput) {
    super();
    this.options = options;
    this.client = options.client ?? new RecallClient();
  }

  /** A new session for a new conversation; keep its id to continue it in a later run. */
  static async newSession(options: Omit<RecallChatHistoryInput, "sessionId">): Promise<RecallChatMessageHistory> {
    const client = options.client ?? new RecallClient();
    const { session_id } = await client.sessions.create();
    return new RecallChatMessageHistory({ ...options, client, sessionId: session_id });
  }

  get sessionId(): string {
    return this.options.sessionId;
  }

  /** The session's turns as messages; with Recall unreachable, none (and a warning), so the chain still answers. */
  async getMessages(): Promise<BaseMessage[]> {
    return softly(this.options, "the conversation's messages were not read", [], async (call) => {
      const messages: BaseMessage[] = [];
      let cursor: string | undefined;
      do {
        const page = await this.client.turns.list(
          this.options.sessionId,
          { scope: this.options.scope, ...(cursor ? { cursor } : {}) },
          call,
        );
        for (const turn of page.turns) messages.push(asMessage(turn.role, turn.content));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return messages;
    });
  }

  /** Posts the message as a turn, not waiting for its extraction; with Recall unreachable, a warning, and the message is not remembered. */
  async addMessage(message: BaseMessage): Promise<void> {
    const role = ROLE[message.getType()];
    if (!role) throw new Error(`RecallChatMessageHistory keeps human, ai and system messages; not ${message.getType()}`);
    const fromUser = role === "user" && this.options.userName;
    await softly(this.options, `the ${role}'s turn was not recorded`, undefined, async (call) => {
      await this.client.turns.post(
        this.options.sessionId,
        // Stored at once (202); its extraction runs meanwhile, so the chain's answer does not wait on it.
        { role, content: message.text, scope: this.options.scope, wait: false, ...(fromUser ? { name: this.options.userName } : {}) },
        call,
      );
    });
  }

  override async clear(): Promise<void> {
    throw new Error("RecallChatMessageHistory does not clear: retract or erase what should be forgotten (docs/erasure.md)");
  }

  /** The budgeted context (POST /context) for `message`, ready for a system prompt; this conversation's turns left out. */
  async contextFor(message: string, maxTokens = 1_000): Promise<string> {
    return softly(this.options, "no memory for this message: /context failed", "", async (call) => {
      const pack = await this.client.context(
        { message, scope: this.options.scope, max_tokens: maxTokens, session_id: this.options.sessionId },
        call,
      );
      return pack.text;
    });
  }
}

function asMessage(role: string, content: string): BaseMessage {
  if (role === "assistant") return new AIMessage(content);
  if (role === "system") return new SystemMessage(content);
  return new HumanMessage(content);
}
