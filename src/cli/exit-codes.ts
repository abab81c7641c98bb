/**
 * cli/exit-codes — the closed set of process exit codes (reference §10.2) and which error
 * codes map to which. docs/cli.md embeds `renderExitCodeTable()` verbatim (a unit test
 * keeps them equal). Imports: core/errors.
 */
import type { ErrorCode } from "../core/errors.js";

/** Every exit code the CLI uses, with what it means. */
export const EXIT_CODES = {
  ok: { code: 0, description: "success" },
  unexpected: { code: 1, description: "unexpected failure (a bug or infrastructure error)" },
  usage: { code: 2, description: "usage error or bad input (the message names the problem)" },
  declared_outcome: {
    code: 3,
    description: "the command ran and reports a declared negative outcome",
  },
  integrity: { code: 4, description: "integrity violation (stored evidence does not check out)" },
} as const;
export type ExitCodeName = keyof typeof EXIT_CODES;
export type ExitCode = (typeof EXIT_CODES)[ExitCodeName]["code"];

/**
 * Error codes whose exit code is not 1. Anything unlisted is `unexpected` (1), the
 * reference's default for an IrrevonError, so a newly added error code is never a crash.
 */
export const EXIT_CODE_FOR_ERROR: Readonly<Partial<Record<ErrorCode, ExitCodeName>>> = {
  contract_invalid: "usage",
  identity_conflict: "usage",
  identity_collision: "integrity",
  advisory_rejected: "usage",
  resolution_invalid: "usage",
  not_found: "declared_outcome",
  append_only_violation: "integrity",
  migration_tampered: "integrity",
  capability_unsupported: "usage",
  declaration_invalid: "usage",
  payload_invalid: "usage",
  config_invalid: "usage",
  usage: "usage",
  crash_hooks_forbidden: "usage",
  stable_id_not_in_schema: "usage",
  tool_definition_invalid: "usage",
};

/** Exit code for an error code. */
export function exitCodeForError(code: ErrorCode): ExitCode {
  return EXIT_CODES[EXIT_CODE_FOR_ERROR[code] ?? "unexpected"].code;
}

/** The Markdown table docs/cli.md embeds. */
export function renderExitCodeTable(): string {
  const rows = Object.entries(EXIT_CODES).map(
    ([name, { code, description }]) => `| ${code} | \`${name}\` | ${description} |`,
  );
  return ["| exit | name | meaning |", "| --- | --- | --- |", ...rows].join("\n");
}
