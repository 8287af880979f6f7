// Imported first by main.ts: tracing is set up before pg, ioredis and BullMQ are first loaded, so
// their OpenTelemetry instrumentations can patch them. Only when main.ts is the entry point (its
// test imports it too, and must not register a process-wide tracer).
import path from "node:path";
import { loadConfig } from "@recall/config";
import { initTracing } from "@recall/telemetry";

if (require.main?.filename.replace(/\.[cm]?[jt]s$/, "") === path.join(__dirname, "main")) {
  const config = loadConfig();
  initTracing(`${config.OTEL_SERVICE_NAME}-worker`, config.OTEL_EXPORTER_OTLP_ENDPOINT);
}
