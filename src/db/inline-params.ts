/**
 * db/inline-params — one parameterised statement written out as plain SQL text, so the server
 * driver can send it in the same message as BEGIN or COMMIT (the simple query protocol takes
 * several statements but no parameters): one network round trip instead of two.
 *
 * Only statements whose every `$n` is certainly a placeholder qualify: the text may hold no
 * string literal, quoted identifier, comment, dollar quote, backslash or semicolon; each `$`
 * must be a `$n` that does not continue an identifier; no `$n` may appear twice. A value
 * becomes a quoted literal of type `unknown`, the very type an untyped bind parameter has, so
 * the server resolves it the same way; NULL stays NULL. Values that cannot travel as text
 * (objects, buffers, non-finite numbers) are refused, and so is a NUL character (the server
 * refuses one in a parameter too, and in a query string it would end the text early).
 * Refusals are errors, never a silent fallback: the caller's round-trip count is a promise.
 * Imports: core.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";

// Anything that could hide a `$n` from the scan, or end the statement.
const UNSAFE_TEXT = /['"\\;]|--|\/\*/;
// Postgres identifiers may hold any non-ASCII letter and `$` after their first character.
const PLACEHOLDER = /(?<![A-Za-z0-9_$\u0080-\uFFFF])\$(\d+)(?![A-Za-z0-9_$\u0080-\uFFFF])/g;

/** Why `sql` cannot be written out, or null when it can. */
function unsafeReason(sql: string): string | null {
  if (UNSAFE_TEXT.test(sql)) return "quotes, a backslash, a comment or a semicolon";
  const dollars = sql.split("$").length - 1;
  const placeholders = sql.match(PLACEHOLDER) ?? [];
  if (dollars !== placeholders.length) return "a $ that is not a $n placeholder";
  // A bound parameter has one type for all its uses; two literals are typed one by one, so a
  // repeated $n could be accepted here and refused bound (42P08): not allowed.
  if (new Set(placeholders).size !== placeholders.length) return "a $n used twice";
  return null;
}

/** Whether {@link inlineParams} accepts the text of `sql` (its values aside). */
export function isInlinable(sql: string): boolean {
  return unsafeReason(sql) === null;
}

function literal(value: unknown, index: number, quote: (text: string) => string): string {
  if (value === null || value === undefined) return "NULL";
  let text: string;
  if (typeof value === "string") text = value;
  else if (typeof value === "boolean" || typeof value === "bigint") text = String(value);
  else if (typeof value === "number" && Number.isFinite(value)) text = String(value);
  else
    throw new IrrevonError(
      ErrorCode.internal,
      `parameter $${index} cannot be written into SQL text (a ${typeof value}); pass a string, number, bigint, boolean or null`,
      { details: { parameter: index, type: typeof value } },
    );
  if (text.includes("\u0000"))
    // What the server answers for a NUL in a bind parameter (22021), so both paths agree.
    throw new IrrevonError(
      ErrorCode.storage_error,
      `parameter $${index} contains a NUL character, which Postgres text cannot hold`,
      { details: { sqlstate: "22021", parameter: index } },
    );
  return quote(text);
}

/**
 * `sql` with each `$n` replaced by `params[n-1]` as a literal, quoted by `quote` (the driver's
 * own escaper). Throws `internal` for a statement or value that does not qualify (see the file
 * header) and `storage_error` (SQLSTATE 22021, as the server would) for a NUL character.
 */
export function inlineParams(
  sql: string,
  params: readonly unknown[],
  quote: (text: string) => string,
): string {
  const reason = unsafeReason(sql);
  if (reason !== null)
    throw new IrrevonError(
      ErrorCode.internal,
      `this statement cannot share a round trip with BEGIN or COMMIT: its text holds ${reason}`,
      { details: { statement: sql.slice(0, 200) } },
    );
  return sql.replace(PLACEHOLDER, (_match, digits: string) => {
    const n = Number(digits);
    if (n < 1 || n > params.length)
      throw new IrrevonError(
        ErrorCode.internal,
        `placeholder $${n} has no parameter (${params.length} given)`,
        { details: { placeholder: n, parameters: params.length } },
      );
    return literal(params[n - 1], n, quote);
  });
}
