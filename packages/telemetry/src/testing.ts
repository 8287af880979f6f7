// For tests that assert spans: an in-memory exporter behind a synchronous processor.
export { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
