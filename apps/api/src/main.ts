import "./tracing-preload";
import { loadConfig } from "@recall/config";
import { createServerApp } from "./server-app";
import { bootstrapApi } from "./bootstrap";
import { answerClientErrors } from "./http/http-client-errors";

async function main(): Promise<void> {
  const config = loadConfig();
  const deps = bootstrapApi(config);
  const server = createServerApp(deps).listen(config.PORT, () => deps.logger.info({ port: config.PORT }, "api listening"));
  answerClientErrors(server);
  const shutdown = () => server.close(() => deps.close().then(() => process.exit(0)));
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

if (require.main === module) {
  main().catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
}
