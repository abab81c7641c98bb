/**
 * workbench/http-errors — the workbench's error codes, their HTTP statuses, and the JSON error
 * envelope `{schema_version, error{code, message, retryable, details}}` (reference §10.1).
 * The HTTP-only codes (method, host, query, size) are protocol answers, not library
 * exceptions, so they live here as a closed set rather than in core/errors. Imports: core.
 */
import { ErrorCode, IrrevonError } from "../core/errors.js";

/** Payload schema version of every JSON body and the `Irrevon-Schema-Version` header. */
export const API_SCHEMA_VERSION = "1";

/** Every code a workbench error response can carry. */
export const WorkbenchErrorCode = {
  method_not_allowed: "method_not_allowed",
  host_rejected: "host_rejected",
  query_invalid: "query_invalid",
  not_found: ErrorCode.not_found,
  storage_unavailable: ErrorCode.storage_unavailable,
  response_too_large: "response_too_large",
  internal: ErrorCode.internal,
} as const;
export type WorkbenchErrorCode = (typeof WorkbenchErrorCode)[keyof typeof WorkbenchErrorCode];

/** HTTP status of each code. */
export const STATUS_OF: Readonly<Record<WorkbenchErrorCode, 400 | 404 | 405 | 421 | 500 | 503>> = {
  method_not_allowed: 405,
  host_rejected: 421,
  query_invalid: 400,
  not_found: 404,
  storage_unavailable: 503,
  response_too_large: 500,
  internal: 500,
};

/** A workbench error as data (never thrown): what the response says. */
export interface WorkbenchError {
  readonly code: WorkbenchErrorCode;
  readonly message: string;
  readonly retryable: boolean;
  readonly details: Readonly<Record<string, unknown>>;
}

/** Builds a {@link WorkbenchError}. */
export function workbenchError(
  code: WorkbenchErrorCode,
  message: string,
  details: Readonly<Record<string, unknown>> = {},
  retryable = false,
): WorkbenchError {
  return { code, message, retryable, details };
}

/** The JSON error envelope. */
export function errorEnvelope(error: WorkbenchError): {
  schema_version: string;
  error: {
    code: string;
    message: string;
    retryable: boolean;
    details: Readonly<Record<string, unknown>>;
  };
} {
  return {
    schema_version: API_SCHEMA_VERSION,
    error: {
      code: error.code,
      message: error.message,
      retryable: error.retryable,
      details: error.details,
    },
  };
}

/**
 * What a thrown error becomes. Only the codes a read can legitimately produce pass through
 * with their message; anything else is `internal` with a fixed message, so a driver's text
 * (which may quote SQL or values) never reaches the browser.
 */
export function fromThrown(e: unknown): WorkbenchError {
  if (e instanceof IrrevonError) {
    if (e.code === ErrorCode.storage_unavailable) {
      return workbenchError(
        WorkbenchErrorCode.storage_unavailable,
        "the ledger database is unavailable",
        {},
        true,
      );
    }
    if (e.code === ErrorCode.not_found)
      return workbenchError(WorkbenchErrorCode.not_found, "not found");
  }
  return workbenchError(WorkbenchErrorCode.internal, "internal error");
}
