// Every model call is a CLIENT span named by the OpenTelemetry GenAI conventions
// (`chat {model}`, gen_ai.* attributes: provider, request and response model, tokens in and
// out) and counts in /metrics per model and pipeline stage (calls, tokens, estimated cost).
import { SpanKind, recordModelCall, withSpan } from "@recall/telemetry";
import { NO_USAGE, type Completion, type CompletionRequest, type ModelClient, type Usage } from "./model-client";

export async function observedComplete<T>(client: ModelClient, request: CompletionRequest<T>, stage: string): Promise<Completion<T>> {
  const model = `${client.provider}:${client.model}`;
  const attributes = {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": client.provider,
    "gen_ai.request.model": client.model,
    "gen_ai.request.max_tokens": request.maxTokens,
    "recall.stage": stage,
    "recall.repair": request.repair ? 1 : 0,
  };
  return withSpan(
    `chat ${client.model}`,
    attributes,
    async (span) => {
      const record = (outcome: string, usage: Usage) => {
        span.setAttributes({ "gen_ai.usage.input_tokens": usage.inputTokens, "gen_ai.usage.output_tokens": usage.outputTokens });
        recordModelCall({ model, stage, outcome, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
      };
      try {
        const completion = await client.complete(request);
        span.setAttribute("gen_ai.response.model", completion.model);
        record("ok", completion.usage);
        return completion;
      } catch (err) {
        const name = err instanceof Error ? err.name : "Error";
        span.setAttribute("error.type", name);
        record(name, (err as { usage?: Usage }).usage ?? NO_USAGE);
        throw err;
      }
    },
    SpanKind.CLIENT,
  );
}
