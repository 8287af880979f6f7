// The budgeted context (POST /context) as a retriever: a chain puts what Recall knows that bears on the user's
// message into its prompt on every call, without the model asking. One Document: the packed text, ready for a system
// prompt, with its sections in `metadata`. With Recall unreachable it answers no Document (see degrade.ts).
import { Document } from "@langchain/core/documents";
import { BaseRetriever, type BaseRetrieverInput } from "@langchain/core/retrievers";
import { RunnableLambda, type Runnable } from "@langchain/core/runnables";
import { RecallClient, type Scope } from "@recall/client";
import { softly, type Degrade } from "./degrade.js";

export interface RecallContextRetrieverInput extends BaseRetrieverInput, Degrade {
  /** Default: a client for RECALL_URL, RECALL_CONTEXT_ID and RECALL_API_KEY. */
  client?: RecallClient;
  /** Whose memory: only what this scope may see is packed; its person is who "me" is in the message. */
  scope?: Scope;
  /** The conversation the chain is in, whose turns its prompt holds already: they are left out. */
  sessionId?: string;
  /** Budget of the packed text, in tokens (default 1,000). */
  maxTokens?: number;
}

/** /context takes messages of up to 8,000 characters; a longer one is asked about by its end. */
const MAX_MESSAGE_CHARS = 8_000;

export class RecallContextRetriever extends BaseRetriever {
  static override lc_name() {
    return "RecallContextRetriever";
  }
  override lc_namespace = ["recall", "retrievers"];
  private readonly options: RecallContextRetrieverInput;
  private readonly client: RecallClient;

  constructor(input: RecallContextRetrieverInput = {}) {
    super(input);
    this.options = input;
    this.client = input.client ?? new RecallClient();
  }

  /** The packed text itself, for a prompt's variable: `{ memory: new RunnablePick("input").pipe(retriever.asText()) }`. */
  asText(): Runnable<string, string> {
    return this.pipe(RunnableLambda.from((docs: Document[]) => docs.map((d) => d.pageContent).join("\n\n")));
  }

  override async _getRelevantDocuments(message: string): Promise<Document[]> {
    const { scope, sessionId, maxTokens } = this.options;
    return softly(this.options, "no memory for this message: /context failed", [], async (call) => {
      const pack = await this.client.context(
        {
          message: message.slice(-MAX_MESSAGE_CHARS),
          max_tokens: maxTokens ?? 1_000,
          ...(scope ? { scope } : {}),
          ...(sessionId ? { session_id: sessionId } : {}),
        },
        call,
      );
      if (pack.text.trim() === "") return [];
      return [new Document({ pageContent: pack.text, metadata: { tokens: pack.tokens, sections: pack.sections } })];
    });
  }
}
