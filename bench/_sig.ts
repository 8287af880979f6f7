import { CpuPool } from "@recall/extraction";
async function main() {
  const pool = new CpuPool({ interactiveThreads: 1, backgroundThreads: 1, taskTimeoutMs: 1500, maxHeapMb: 1024 });
  const words = ["alpha","river","stone","cloud"]; const parts: string[] = []; for (let i=0;i<900000;i++) parts.push(words[i%4]!);
  const c = new AbortController();
  const t0 = performance.now();
  await pool.run("parse_document", { format: "markdown", text: parts.join(" ") }, { pdf: { timeoutMs: 1000 } }, { lane: "background", signal: c.signal }).then(() => console.log("ok"), (e) => console.log("err", e.message));
  console.log(Math.round(performance.now() - t0));
  await pool.close();
}
main();
