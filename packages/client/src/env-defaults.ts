// Where the client finds the service when the caller does not say: RECALL_URL, RECALL_CONTEXT_ID and RECALL_API_KEY,
// as the Quickstart exports them, so an example runs unchanged on any port. An option given wins over its variable.
// Read through globalThis: in a browser or an edge runtime there is no `process`, and then nothing is defaulted.

export interface ConnectionDefaults {
  baseUrl?: string;
  contextId?: string;
  apiKey?: string;
}

/** The names of the variables read, in the order the docs introduce them. */
export const ENV_NAMES = { baseUrl: "RECALL_URL", apiKey: "RECALL_API_KEY", contextId: "RECALL_CONTEXT_ID" } as const;

function env(name: string): string | undefined {
  const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name]?.trim();
  return value ? value : undefined;
}

/** The given options, each missing one taken from its variable; a missing base URL is an error that names RECALL_URL. */
export function withEnvDefaults<O extends ConnectionDefaults>(options: O): O & { baseUrl: string } {
  const baseUrl = options.baseUrl ?? env(ENV_NAMES.baseUrl);
  if (!baseUrl) throw new Error(`RecallClient needs baseUrl, or ${ENV_NAMES.baseUrl} in the environment (e.g. http://localhost:8080)`);
  return {
    ...options,
    baseUrl,
    contextId: options.contextId ?? env(ENV_NAMES.contextId),
    apiKey: options.apiKey ?? env(ENV_NAMES.apiKey),
  };
}
