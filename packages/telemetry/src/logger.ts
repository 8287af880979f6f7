import pino from "pino";
import { scrubValue } from "./secret-scrubber";

export type Logger = pino.Logger;

export interface LoggerOptions {
  /** Values that must never be written (API and provider keys); credential-shaped text is scrubbed regardless. */
  secrets?: readonly (string | undefined)[];
  /** Where lines go; stdout unless given (tests capture a run's whole output here). */
  destination?: pino.DestinationStream;
}

export function createLogger(level: string, name: string, options: LoggerOptions = {}): Logger {
  const secrets = options.secrets ?? [];
  const settings: pino.LoggerOptions = {
    name,
    level,
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    hooks: {
      logMethod(args, method) {
        return method.apply(this, args.map((a) => scrubValue(a, secrets)) as Parameters<pino.LogFn>);
      },
    },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
