// Which span a work item's job is published under when it is queued again (an operator's retry, the sweeper,
// the outbox relay): the span that created the item, kept on its payload, so every span of the item's trace has a
// parent that was itself exported. Only an item from before that was kept (or whose payload a stage replaced)
// falls back to a parent made up for its trace id.
import { carrierForTraceId, injectTraceContext, type TraceCarrier } from "@recall/telemetry";

/** The active span's context when it belongs to `traceId` (to keep on a new item's payload), else nothing. */
export function creatorTrace(traceId: string): { traceparent: string } | undefined {
  const { traceparent } = injectTraceContext();
  return traceparent && traceparent.split("-")[1] === traceId ? { traceparent } : undefined;
}

/** The carrier to publish an item's job under: its creator's span when kept, else one made up for its trace id. */
export function itemTrace(item: { traceId: string; payload?: unknown }): TraceCarrier {
  const kept = typeof item.payload === "object" && item.payload !== null ? (item.payload as { trace?: unknown }).trace : undefined;
  const traceparent = typeof kept === "object" && kept !== null ? (kept as { traceparent?: unknown }).traceparent : undefined;
  if (typeof traceparent === "string" && traceparent.split("-")[1] === item.traceId) return { traceparent };
  return carrierForTraceId(item.traceId);
}
