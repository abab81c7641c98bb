/**
 * cli/operator-args — argument parsing and outcome reporting shared by the operator commands
 * (`worker`, `findings`, `resolve`, `deny`, `branch`): ids and durations are checked here so a
 * bad one is a one-line usage error naming the argument (exit 2), and an error that is really a
 * declared negative outcome (someone else resolved the finding first, the entry was already
 * lifted, another process owns the embedded ledger) is printed as usual but exits 3.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";
import { EXIT_CODES } from "./exit-codes.js";
import { reportError, requestExit } from "./output.js";

/** A positive integer id (finding id, deny id), or a usage error naming `name`. */
export function parseId(text: string, name: string): number {
  if (!/^[1-9]\d{0,15}$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new IrrevonError(
      ErrorCode.usage,
      `${name} must be a whole number from 1 to ${Number.MAX_SAFE_INTEGER}`,
      { details: { argument: name, value: text, min: 1, max: Number.MAX_SAFE_INTEGER } },
    );
  }
  return Number(text);
}

/** A positive number of seconds from a flag, or a usage error naming the flag. */
export function parseSeconds(text: string, flag: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(n > 0) || n > 86_400) {
    throw new IrrevonError(ErrorCode.usage, `${flag} must be a number of seconds in (0, 86400]`, {
      details: { flag, value: text },
    });
  }
  return n;
}

/** A positive integer count from a flag, or a usage error naming the flag. */
export function parseCount(text: string, flag: string): number {
  if (!/^[1-9]\d{0,8}$/.test(text)) {
    throw new IrrevonError(ErrorCode.usage, `${flag} must be a whole number from 1 to 999999999`, {
      details: { flag, value: text, min: 1, max: 999_999_999 },
    });
  }
  return Number(text);
}

/**
 * Runs `fn`; an IrrevonError whose code is in `declared` is reported like any error but sets
 * exit code 3 instead of failing the process.
 */
export async function withDeclaredOutcomes(
  json: boolean,
  declared: readonly ErrorCode[],
  fn: () => Promise<void>,
): Promise<void> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof IrrevonError && declared.includes(e.code)) {
      reportError(e, json);
      requestExit(EXIT_CODES.declared_outcome.code);
      return;
    }
    throw e;
  }
}
