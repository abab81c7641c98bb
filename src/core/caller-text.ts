/**
 * core/caller-text — bounds on what an operator or a caller writes into the ledger as free
 * text or evidence outside an intent contract: reasons, notes, who decided, and the evidence
 * object of a resolution. The ledger is append-only, so whatever is accepted there stays for
 * good; each limit is checked before anything is opened or written, and a refusal names the
 * field, the limit and the length it got. Imports: core.
 */
import { type ErrorCode, IrrevonError } from "./errors.js";
import { codePointLength } from "./preflight.js";

/** Characters of one free-text field (a reason, a note, who decided). */
export const CALLER_TEXT_MAX_CHARS = 2_000;

/** Characters of a name: who decided a settlement. */
export const DECIDED_BY_MAX_CHARS = 256;

/** UTF-8 bytes of a caller's evidence object, its member names and strings counted. */
export const CALLER_EVIDENCE_MAX_BYTES = 65_536;

type CallerErrorCode = typeof ErrorCode.usage | typeof ErrorCode.resolution_invalid;

/**
 * Throws `code` unless `value` is a string of `min`..`max` characters (code points), or absent
 * when `optional`. The message names the field, the limit and what was given.
 */
export function checkCallerText(
  value: unknown,
  field: string,
  code: CallerErrorCode,
  options: { readonly min?: number; readonly max?: number; readonly optional?: boolean } = {},
): void {
  if (value === undefined && options.optional === true) return;
  const min = options.min ?? 1;
  const max = options.max ?? CALLER_TEXT_MAX_CHARS;
  const length = typeof value === "string" ? codePointLength(value) : null;
  if (length !== null && length >= min && length <= max) return;
  const got = length === null ? `a ${value === null ? "null" : typeof value}` : `${length}`;
  throw new IrrevonError(
    code,
    `${field} must be a string of ${min} to ${max} characters; got ${got}`,
    { details: { field, min, limit: max, ...(length === null ? {} : { length }) } },
  );
}

/**
 * Throws `code` when the evidence object `value` holds more than CALLER_EVIDENCE_MAX_BYTES of
 * member names and strings (UTF-8), counted by an iterative walk that stops at the limit. Run
 * after the advisory guard, which bounds its depth and node count.
 */
export function checkCallerEvidenceSize(
  value: unknown,
  field: string,
  code: CallerErrorCode,
): void {
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") bytes += Buffer.byteLength(v, "utf8") + 2;
    else if (Array.isArray(v)) {
      bytes += 2;
      for (const item of v) stack.push(item);
    } else if (typeof v === "object" && v !== null) {
      bytes += 2;
      for (const [k, item] of Object.entries(v)) {
        bytes += Buffer.byteLength(k, "utf8") + 3;
        stack.push(item);
      }
    } else bytes += 8;
    if (bytes > CALLER_EVIDENCE_MAX_BYTES)
      throw new IrrevonError(
        code,
        `${field} is larger than ${CALLER_EVIDENCE_MAX_BYTES} bytes; keep the evidence to ` +
          "references and a short note, and store anything bigger elsewhere",
        { details: { field, limit: CALLER_EVIDENCE_MAX_BYTES } },
      );
  }
}
