import "./tracing-preload";
import { loadConfig } from "@recall/config";
import { createServerApp } from "./server-app";
import { bootstrapApi, claimDeployment } from "./bootstrap";
import { answerClientErrors } from "./http/http-client-errors";
import { drainServer } from "./http/drain";
import { SHUTDOWN_GRACE_MS, exitAfter } from "@recall/telemetry";

async function main(): Promise<void> {
  const config = loadConfig();
  const deps = bootstrapApi(config);
  await claimDeployment(deps).catch(async (err: Error) => {
    await deps.close();
    throw err;
  });
  const server = createServerApp(deps).listen(config.PORT, () => deps.logger.info({ port: config.PORT }, "api listening"));
  answerClientErrors(server);
  // SIGTERM: /readyz 503, no new connections, requests in flight answered within SHUTDOWN_TIMEOUT_MS (http/drain.ts).
  const shutdown = async (signal: string) => {
    const timeoutMs = config.SHUTDOWN_TIMEOUT_MS;
    deps.logger.info({ signal, timeoutMs }, "shutting down");
    exitAfter(timeoutMs + SHUTDOWN_GRACE_MS, deps.logger);
    const drained = await drainServer(
      { server, drain: deps.drain, releaseWaiting: () => deps.turns.release(), logger: deps.logger },
      timeoutMs,
    );
    await deps.close();
    deps.logger.info({ drained }, "api stopped");
    process.exit(0);
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

if (require.main === module) {
  main().catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
}
