/**
 * core/errors — the one error hierarchy. Every exception the library throws is an
 * IrrevonError with a stable snake_case `code` (listed in docs/errors.md, never reused),
 * a `retryable` flag and structured `details`. Expected outcomes are values, not exceptions.
 * Imports: nothing.
 */

/** Stable error codes. Add new ones at the end; never rename or reuse one. */
export const ErrorCode = {
  contract_invalid: "contract_invalid",
  identity_conflict: "identity_conflict",
  identity_collision: "identity_collision",
  taint_violation: "taint_violation",
  advisory_rejected: "advisory_rejected",
  illegal_state: "illegal_state",
  stale_state: "stale_state",
  resolution_invalid: "resolution_invalid",
  not_found: "not_found",
  storage_unavailable: "storage_unavailable",
  storage_error: "storage_error",
  privilege_denied: "privilege_denied",
  append_only_violation: "append_only_violation",
  migration_tampered: "migration_tampered",
  migration_failed: "migration_failed",
  capability_unsupported: "capability_unsupported",
  declaration_invalid: "declaration_invalid",
  payload_invalid: "payload_invalid",
  config_invalid: "config_invalid",
  usage: "usage",
  ledger_locked: "ledger_locked",
  lease_lost: "lease_lost",
  crash_hooks_forbidden: "crash_hooks_forbidden",
  internal: "internal",
  destination_unavailable: "destination_unavailable",
  worker_id_in_use: "worker_id_in_use",
  schema_behind: "schema_behind",
  evidence_invalid: "evidence_invalid",
  stable_id_not_in_schema: "stable_id_not_in_schema",
  tool_definition_invalid: "tool_definition_invalid",
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface IrrevonErrorOptions {
  readonly retryable?: boolean;
  readonly details?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
}

/** Base class: stable code, retryable flag, structured details, cause chaining. */
export class IrrevonError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options: IrrevonErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "IrrevonError";
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.details = options.details ?? {};
  }

  /** The JSON error envelope used by the CLI, the workbench and logs. */
  toEnvelope(): { code: ErrorCode; message: string; retryable: boolean; details: Readonly<Record<string, unknown>> } {
    return { code: this.code, message: this.message, retryable: this.retryable, details: this.details };
  }
}

/** Kind of a JSON value, as reported in contract errors. */
export type ValueKind = "object" | "array" | "string" | "number" | "integer" | "boolean" | "null" | "undefined" | "other";

/** A rejected intent contract: names the JSON path, the limit and the value's kind. */
export class ContractInvalidError extends IrrevonError {
  readonly path: string;
  readonly limit: string;
  readonly valueKind: ValueKind;

  constructor(
    message: string,
    path: string,
    limit: string,
    valueKind: ValueKind,
    extra: Readonly<Record<string, unknown>> = {},
  ) {
    super(ErrorCode.contract_invalid, message, { details: { path, limit, value_kind: valueKind, ...extra } });
    this.name = "ContractInvalidError";
    this.path = path;
    this.limit = limit;
    this.valueKind = valueKind;
  }
}

export function isIrrevonError(e: unknown): e is IrrevonError {
  return e instanceof IrrevonError;
}
