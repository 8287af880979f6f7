/** Polls until the condition returns a value (not undefined/false), or fails with the last value seen. The default wait (30 s) is for a loaded 2-core machine: tests check outcomes, benchmarks check speed. */
export async function waitFor<T>(
  condition: () => Promise<T | undefined | false>,
  { timeoutMs = 30_000, what = "condition" as string | (() => string) } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
    const value = await condition();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === "function" ? what() : what}`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
