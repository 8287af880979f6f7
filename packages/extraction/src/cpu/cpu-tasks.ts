// The tasks a CPU pool thread runs (cpu-pool.ts): each is a plain function of structured-clone
// data, so the same code runs in-process in tests and benches.
import type { ExtractionInput } from "@recall/contracts";
import { parseDocument, type ParseInput, type ParseOptions } from "../documents/document-parser";
import { DocumentParseError, type ParsedDocument } from "../documents/document-types";
import { readBatchWithRules, readWithRules, type BatchRead, type RuleBatch, type RuleOptions, type RuleReading } from "./rule-reading";

export interface CpuTasks {
  rules: { input: ExtractionInput; options: RuleOptions; result: RuleReading };
  rules_batch: { input: RuleBatch; options: RuleOptions; result: BatchRead };
  parse_document: { input: ParseInput; options: ParseOptions; result: ParseResult };
}

/** A document that is not what its format says is an answer, not a crash: errors lose their class crossing threads. */
export type ParseResult = { parsed: ParsedDocument } | { unreadable: string };

export type CpuTaskName = keyof CpuTasks;

export interface CpuTask<K extends CpuTaskName = CpuTaskName> {
  name: K;
  input: CpuTasks[K]["input"];
  options: CpuTasks[K]["options"];
  /** Shared with the pool: the handler writes the time it started here, so the time limit counts the run alone. */
  started?: SharedArrayBuffer;
}

/** The thread's handler: one task in, its result out. */
export default async function runCpuTask(task: CpuTask): Promise<unknown> {
  if (task.started) new Float64Array(task.started)[0] = Date.now();
  switch (task.name) {
    case "rules": {
      const { input, options } = task as CpuTask<"rules">;
      return readWithRules(input, options);
    }
    case "rules_batch": {
      const { input, options } = task as CpuTask<"rules_batch">;
      return readBatchWithRules(input, options);
    }
    case "parse_document": {
      const { input, options } = task as CpuTask<"parse_document">;
      // A Buffer crosses a thread boundary as a plain Uint8Array.
      const bytes = input.bytes ? Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength) : undefined;
      return parseDocument({ ...input, bytes }, options).then(
        (parsed): ParseResult => ({ parsed }),
        (err: unknown): ParseResult => {
          if (err instanceof DocumentParseError) return { unreadable: err.message };
          throw err;
        },
      );
    }
  }
}
