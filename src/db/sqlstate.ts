/**
 * db/sqlstate — the one place database errors become IrrevonErrors. Both drivers pass every
 * failure through `mapDbError`, so callers branch on stable codes (and on
 * `details.sqlstate` / `details.constraint` when they need the precise cause, e.g. a lost
 * unique-key race), never on driver error classes or message text. Imports: core.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";

/** SQLSTATEs the ledger SQL raises explicitly (test/integration/migrations-sqlstates.test.ts checks every ERRCODE in sql/migrations is here). */
export const RAISED_SQLSTATES = [
  "DT001",
  "DT002",
  "DT003",
  "DT004",
  "DT005",
  "DT006",
  "DT010",
  "DT020",
  "DT044",
] as const;
export type RaisedSqlState = (typeof RAISED_SQLSTATES)[number];

/** The SQLSTATE the append-only trigger function `irrevon_no_rewrite()` raises. */
export const APPEND_ONLY_SQLSTATE: RaisedSqlState = "DT010";

interface Mapping {
  readonly code: ErrorCode;
  readonly retryable: boolean;
}

const EXACT: Readonly<Record<string, Mapping>> = {
  DT001: { code: ErrorCode.illegal_state, retryable: false },
  DT002: { code: ErrorCode.stale_state, retryable: false },
  DT003: { code: ErrorCode.illegal_state, retryable: false },
  DT004: { code: ErrorCode.resolution_invalid, retryable: false },
  DT005: { code: ErrorCode.illegal_state, retryable: false },
  DT006: { code: ErrorCode.lease_lost, retryable: true }, // a write fenced by an expired worker lease (0020+)
  DT010: { code: ErrorCode.append_only_violation, retryable: false },
  DT020: { code: ErrorCode.worker_id_in_use, retryable: true }, // another live lease holds the worker id (0048+)
  // A cited probe, receipt or human decision failed verification (0044); details.constraint names the rule.
  DT044: { code: ErrorCode.evidence_invalid, retryable: false },
  "42501": { code: ErrorCode.privilege_denied, retryable: false }, // insufficient_privilege
  "25006": { code: ErrorCode.privilege_denied, retryable: false }, // read_only_sql_transaction
  "40001": { code: ErrorCode.storage_error, retryable: true }, // serialization_failure
  "40P01": { code: ErrorCode.storage_error, retryable: true }, // deadlock_detected
  "55P03": { code: ErrorCode.storage_error, retryable: true }, // lock_not_available (lock_timeout)
  "57014": { code: ErrorCode.storage_error, retryable: true }, // query_canceled (statement_timeout)
  "57P01": { code: ErrorCode.storage_unavailable, retryable: true }, // admin_shutdown
  "57P02": { code: ErrorCode.storage_unavailable, retryable: true }, // crash_shutdown
  "57P03": { code: ErrorCode.storage_unavailable, retryable: true }, // cannot_connect_now
  "53300": { code: ErrorCode.storage_unavailable, retryable: true }, // too_many_connections
};

/** Node-level socket failures that mean the server cannot be reached. */
const CONNECTION_ERRNOS = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);

/** Messages node-postgres uses for a connection it lost or could not open (no code attached). */
const CONNECTION_MESSAGES = [
  /Connection terminated/i,
  /connection timeout/i,
  /Client has encountered a connection error/i,
  /timeout exceeded when trying to connect/i,
];

/** The mapping for one SQLSTATE (exported for the mapping test). */
export function mappingFor(sqlstate: string): Mapping {
  const exact = EXACT[sqlstate];
  if (exact !== undefined) return exact;
  if (sqlstate.startsWith("08")) return { code: ErrorCode.storage_unavailable, retryable: true }; // connection_exception
  return { code: ErrorCode.storage_error, retryable: false };
}

function stringField(e: object, key: string): string | undefined {
  const v = (e as Record<string, unknown>)[key];
  return typeof v === "string" && v !== "" ? v : undefined;
}

/**
 * Maps any error thrown by a driver to an IrrevonError. IrrevonErrors pass through unchanged
 * (so errors thrown by a transaction's callback keep their identity).
 */
export function mapDbError(e: unknown): IrrevonError {
  if (e instanceof IrrevonError) return e;
  if (typeof e !== "object" || e === null) {
    return new IrrevonError(ErrorCode.storage_error, `database failure: ${String(e)}`, {
      cause: e,
    });
  }
  const message = e instanceof Error ? e.message : "database failure";
  const code = stringField(e, "code");
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) {
    const m = mappingFor(code);
    const details: Record<string, unknown> = { sqlstate: code };
    for (const key of ["constraint", "table", "column", "schema"] as const) {
      const v = stringField(e, key);
      if (v !== undefined) details[key] = v;
    }
    return new IrrevonError(m.code, message, { retryable: m.retryable, details, cause: e });
  }
  if (
    (code !== undefined && CONNECTION_ERRNOS.has(code)) ||
    CONNECTION_MESSAGES.some((re) => re.test(message))
  ) {
    return new IrrevonError(ErrorCode.storage_unavailable, `database unreachable: ${message}`, {
      retryable: true,
      details: code === undefined ? {} : { errno: code },
      cause: e,
    });
  }
  return new IrrevonError(ErrorCode.storage_error, message, { cause: e });
}
