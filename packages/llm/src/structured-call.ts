import type { Budget } from "./budget";
import { OutputValidationError, type MalformedOutputError } from "./llm-errors";
import { addUsage, NO_USAGE, type Completion, type CompletionRequest, type ModelClient, type Usage } from "./model-client";
import { repairTurnFor } from "./repair-prompt";
import { observedComplete } from "./observed-call";
import { promptTokens } from "./prompt-tokens";
import { isOutputFailure } from "./validate-output";

export interface StructuredCallOptions {
  budget: Budget;
  /** The pipeline stage calling (fast, strong, disambiguation): a label on spans and metrics. */
  stage?: string;
}

export interface StructuredResult<T> extends Completion<T> {
  /** 1, or 2 when the first answer was unusable and the repair succeeded. */
  attempts: 1 | 2;
  /** Tokens of every attempt; `usage` is the last attempt's alone. */
  totalUsage: Usage;
}

/**
 * One structured completion under a budget. Unusable output (malformed or failing the
 * schema) gets ONE repair attempt that shows the model its answer and the problems; if
 * that fails too, OutputValidationError is thrown and the caller may escalate to the
 * strong model. Provider errors propagate unchanged: the queue owns retries.
 */
export async function structuredCall<T>(
  client: ModelClient,
  request: CompletionRequest<T>,
  { budget, stage = "unlabelled" }: StructuredCallOptions,
): Promise<StructuredResult<T>> {
  const call = (req: CompletionRequest<T>) => meteredComplete(client, req, budget, spent, stage);
  const spent: Usage[] = [];
  let first: Completion<T>;
  try {
    first = await call(request);
  } catch (err) {
    if (!isOutputFailure(err)) throw err;
    const repaired = await repairComplete(call, request, err);
    return { ...repaired, attempts: 2, totalUsage: spent.reduce(addUsage, NO_USAGE) };
  }
  return { ...first, attempts: 1, totalUsage: spent.reduce(addUsage, NO_USAGE) };
}

async function repairComplete<T>(
  call: (request: CompletionRequest<T>) => Promise<Completion<T>>,
  request: CompletionRequest<T>,
  failure: MalformedOutputError | OutputValidationError,
): Promise<Completion<T>> {
  try {
    return await call({ ...request, repair: repairTurnFor(failure) });
  } catch (err) {
    if (!isOutputFailure(err)) throw err;
    throw finalValidationError(err);
  }
}

function finalValidationError(err: MalformedOutputError | OutputValidationError): OutputValidationError {
  const issues =
    err instanceof OutputValidationError ? err.issues : [{ code: "custom" as const, path: [], message: err.message, input: err.rawText }];
  return new OutputValidationError(issues, err.rawText, err.usage, { attempts: 2, cause: err });
}

/** The least answer a call is made for: a shorter one cannot hold a usable diff and only burns the prompt. */
const MIN_OUTPUT_TOKENS = 64;

/**
 * Checks the budget, counts the prompt and caps the answer to what is left (so prompt plus answer never pass
 * the budget), makes the call under the budget's wall clock, and charges what it cost.
 */
async function meteredComplete<T>(
  client: ModelClient,
  request: CompletionRequest<T>,
  budget: Budget,
  spent: Usage[],
  stage: string,
): Promise<Completion<T>> {
  budget.assertAvailable();
  const prompt = await promptTokens(request, budget.remainingTokens - MIN_OUTPUT_TOKENS);
  const room = budget.remainingTokens - prompt;
  if (room < MIN_OUTPUT_TOKENS) throw budget.promptDoesNotFit(prompt);
  const signal = budget.signal(request.signal);
  try {
    const completion = await observedComplete(client, { ...request, maxTokens: Math.min(request.maxTokens, room), signal }, stage);
    charge(budget, spent, completion.usage);
    return completion;
  } catch (err) {
    if (isOutputFailure(err)) charge(budget, spent, err.usage);
    // Our wall clock fired, not the caller's signal: the budget ran out mid-call.
    if (signal.aborted && !request.signal?.aborted) throw budget.exceeded("wall_time");
    throw err;
  }
}

function charge(budget: Budget, spent: Usage[], usage: Usage): void {
  budget.charge(usage);
  spent.push(usage);
}
