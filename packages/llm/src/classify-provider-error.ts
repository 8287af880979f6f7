import type * as AnthropicErrors from "@anthropic-ai/sdk";
import type * as OpenAiErrors from "openai";
import { ProviderError, type ProviderErrorKind } from "./llm-errors";
import { anthropicSdk, openAiSdkModule } from "./provider-sdks";
import { parseRetryAfterMs } from "./retry-after";

type SdkApiError = AnthropicErrors.APIError | OpenAiErrors.APIError;

// Only an SDK's call throws its errors, so both SDKs are loaded here only once a call has failed (provider-sdks.ts).
const sdks = () => [anthropicSdk(), openAiSdkModule()] as const;

function isSdkApiError(err: unknown): err is SdkApiError {
  return sdks().some((sdk) => err instanceof sdk.APIError);
}

// The timeout classes extend the connection classes, so test for them first.
function isSdkTimeout(err: unknown): boolean {
  return sdks().some((sdk) => err instanceof sdk.APIConnectionTimeoutError);
}

function isSdkConnectionError(err: unknown): boolean {
  return sdks().some((sdk) => err instanceof sdk.APIConnectionError);
}

/** By HTTP status, the way the providers document them. */
export function kindForStatus(status: number): ProviderErrorKind {
  if (status === 429) return "rate_limit";
  if (status === 408) return "timeout";
  if (status === 401 || status === 402 || status === 403) return "auth";
  // 409 is a lock timeout on the provider side (the SDKs retry it); 5xx and 529 are overload/outage.
  if (status === 409 || status >= 500) return "server";
  return "bad_request";
}

/**
 * Maps an SDK error to a ProviderError. Anything that is not an SDK error (a bug of ours,
 * an abort) is returned unchanged so it is not mistaken for a provider failure.
 */
export function classifyProviderError(err: unknown): unknown {
  if (isSdkTimeout(err)) return new ProviderError("timeout", "provider request timed out", { cause: err });
  if (isSdkConnectionError(err)) {
    return new ProviderError("connection", `could not reach provider: ${(err as Error).message}`, { cause: err });
  }
  if (!isSdkApiError(err) || err.status === undefined) return err;
  return new ProviderError(kindForStatus(err.status), `provider answered ${err.status}: ${err.message}`, {
    status: err.status,
    retryAfterMs: parseRetryAfterMs(err.headers),
    cause: err,
  });
}

/**
 * Runs one SDK call under our own deadline of `timeoutMs`, so a timeout is recognised as one
 * whatever the SDK makes of the aborted fetch (under some runtimes, jest's included, it
 * reports a plain connection error). When the caller's signal aborted, its reason is
 * thrown, as fetch does, so aborts are never reported as provider failures.
 */
export async function withProviderErrors<R>(
  callerSignal: AbortSignal | undefined,
  timeoutMs: number,
  call: (signal: AbortSignal) => Promise<R>,
  /** The key the call was made with: a provider or proxy that echoes it in an error must not get it stored. */
  apiKey?: string,
): Promise<R> {
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, deadline]) : deadline;
  try {
    return await call(signal);
  } catch (err) {
    if (callerSignal?.aborted) throw callerSignal.reason;
    if (deadline.aborted) {
      throw new ProviderError("timeout", `provider did not answer within ${timeoutMs} ms`, { cause: err });
    }
    throw withoutKey(classifyProviderError(err), apiKey);
  }
}

function withoutKey(err: unknown, apiKey: string | undefined): unknown {
  if (!apiKey || !(err instanceof Error) || !err.message.includes(apiKey)) return err;
  err.message = err.message.replaceAll(apiKey, "[redacted]");
  return err;
}
