// Reads one sample from Prometheus text exposition, for tests that scrape /metrics.

/** The value of `name{labels}` (labels matched exactly, in any order); 0 when the series is absent. */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(",");
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const got = (match[2] ?? "").match(/[a-zA-Z_]+="(?:[^"\\]|\\.)*"/g) ?? [];
    if (got.sort().join(",") === wanted) return Number(match[3]);
  }
  return 0;
}
