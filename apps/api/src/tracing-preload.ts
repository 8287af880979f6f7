// Imported first by main.ts: tracing is set up before http, express, pg and ioredis are first
// loaded, so their OpenTelemetry instrumentations can patch them.
import { loadConfig } from "@recall/config";
import { initTracing } from "@recall/telemetry";

const config = loadConfig();
initTracing(`${config.OTEL_SERVICE_NAME}-api`, config.OTEL_EXPORTER_OTLP_ENDPOINT);
