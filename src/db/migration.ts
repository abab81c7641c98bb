/**
 * db/migration — the shape of one compiled migration (see scripts/compile-migrations.mjs and
 * the generated src/db/migrations.generated.ts). Imports: nothing.
 */

/** One SQL migration file as compiled into the package. */
export interface Migration {
  /** `NNNN_slug.sql`; migrations apply in lexical order of this name. */
  readonly filename: string;
  /** The file's text. */
  readonly sql: string;
  /** Lowercase hex SHA-256 of the UTF-8 bytes of `sql`; journaled when applied. */
  readonly sha256: string;
}

/** First-line marker of a migration that must run as the migrating login, not irrevon_owner. */
export const RUN_AS_LOGIN_MARKER = "-- irrevon:run-as-login";
