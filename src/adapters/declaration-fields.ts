/**
 * adapters/declaration-fields — what each capability-declaration field accepts and how to fix
 * a bad one, in words an adapter author can act on. The declaration loader turns every schema
 * or cross-field refusal into a message naming the field (JSON pointer), the allowed values or
 * limit, and the fix, from this table. Imports: nothing.
 */

/** The allowed values (or limit) of one field, and the usual fix. */
export interface FieldRule {
  readonly allowed: string;
  readonly fix: string;
}

const DURATION_ALLOWED =
  'null (unbounded) or an ISO 8601 duration "PT[nH][nM][n(.n)S]" of at most 366 days, e.g. "PT0S", "PT30S", "PT1H"';
const DURATION_FIX =
  "write days as hours (P1D → PT24H); use null only if the destination states no bound";

/** Attribution modes, strongest first (kept in step with declaration.ts). */
const MODES =
  '"exact", "stable-id-projection", "metadata", "temporal-window", "ambiguous", "impossible"';

/** Field rules by JSON pointer; `*` stands for any array index. */
export const FIELD_RULES: Readonly<Record<string, FieldRule>> = {
  "/": {
    allowed: "a JSON object with the members of a capability declaration",
    fix: "pass an object such as the examples in docs/adapters.md",
  },
  "/adapter": {
    allowed: "1-100 characters of a-z 0-9 . _ - starting with a letter or digit",
    fix: 'use a lower-case id such as "acme-c2"',
  },
  "/destination": {
    allowed: "a string of 1-100 characters",
    fix: 'name the destination system, e.g. "acme"',
  },
  "/api_version": {
    allowed: "a string of 1-100 characters",
    fix: 'state the destination API version you call, e.g. "2026-01-01" or "v2"',
  },
  "/tier": {
    allowed: '"C1" (native idempotency key), "C2" (queryable, no idempotency) or "C3" (opaque)',
    fix: "pick the tier from what the destination offers (see docs/adapters.md, Tiers)",
  },
  "/idempotency": {
    allowed: "an object {supported: boolean, window: duration|null, replay_semantics: string|null}",
    fix: 'C1: {supported: true, window: "PT24H", replay_semantics: "…"}; C2/C3: {supported: false, window: null, replay_semantics: null}',
  },
  "/idempotency/supported": {
    allowed: "true or false",
    fix: "true only if the destination deduplicates requests by an idempotency key",
  },
  "/idempotency/window": {
    allowed: DURATION_ALLOWED,
    fix: "state how long the destination remembers a key (e.g. PT24H); null when not supported",
  },
  "/idempotency/replay_semantics": {
    allowed: "null or a string of 1-2000 characters",
    fix: "describe what a repeated key returns (e.g. the first outcome); null when not supported",
  },
  "/queryable": {
    allowed: "an object {supported: boolean, by: [query keys], batch_max?: integer 2..1000 | null}",
    fix: 'e.g. {supported: true, by: ["destination_ref", "client_ref"]} or {supported: false, by: []}',
  },
  "/queryable/supported": {
    allowed: "true or false",
    fix: "true iff the destination can be asked whether an effect exists",
  },
  "/queryable/by": {
    allowed: "an array of distinct query keys; empty iff queryable.supported is false",
    fix: "list each key the status query supports",
  },
  "/queryable/by/*": {
    allowed:
      '"destination_ref", "client_ref" or "stable_id:<name>" (name: letter or _, then up to 63 of A-Z a-z 0-9 _ . -)',
    fix: "use one of the allowed key names",
  },
  "/queryable/batch_max": {
    allowed:
      "absent, null (no batch lookups) or an integer 2..1000: the most keys one statusQueryBatch call answers",
    fix: "state the destination's documented batch limit (e.g. 100), or remove the member if it has no batch lookup",
  },
  "/client_ref_field": {
    allowed:
      "null or a string of 1-200 characters (the request field that carries the operation id)",
    fix: 'name the field the adapter stamps the client ref into (e.g. "metadata.irrevon_ref"), or null if there is none',
  },
  "/list_queryable": {
    allowed: "true or false",
    fix: "true iff the destination can list effects created in a time window",
  },
  "/consistency": {
    allowed: "an object {status_settlement_lag: duration|null, listing_lag: duration|null}",
    fix: 'e.g. {status_settlement_lag: "PT0S", listing_lag: "PT30S"}',
  },
  "/consistency/status_settlement_lag": { allowed: DURATION_ALLOWED, fix: DURATION_FIX },
  "/consistency/listing_lag": { allowed: DURATION_ALLOWED, fix: DURATION_FIX },
  "/citations": {
    allowed: "an array of at least one URI",
    fix: "cite the destination documentation each claim rests on",
  },
  "/citations/*": {
    allowed: "a URI of the form scheme:rest without spaces, at most 2000 characters",
    fix: 'use a link such as "https://docs.example.com/api#idempotency"',
  },
  "/evidence_quality": {
    allowed:
      '"VF" (behaviour verified against the destination) or "EI" (taken from its documentation)',
    fix: 'use "EI" unless a test checks the declared behaviour against the destination',
  },
  "/compensation_hook": {
    allowed: "null or a string of 1-200 characters",
    fix: "name the compensating effect type, or use null",
  },
  "/attribution": {
    allowed: "an object {modes: [...], fields?: [...], notes?: string}",
    fix: 'e.g. {modes: ["exact"], fields: ["client_ref"]}',
  },
  "/attribution/modes": {
    allowed: `a non-empty array of distinct modes, strongest first: ${MODES}`,
    fix: "list the modes in the order given",
  },
  "/attribution/modes/*": { allowed: `one of ${MODES}`, fix: "use one of the allowed modes" },
  "/attribution/fields": {
    allowed: "an array of strings of 1-200 characters",
    fix: "list the response fields that attribute an effect to its operation",
  },
  "/attribution/fields/*": {
    allowed: "a string of 1-200 characters",
    fix: "name a response field",
  },
  "/attribution/notes": {
    allowed: "a string of at most 2000 characters",
    fix: "shorten the notes",
  },
};

/** The rule for a JSON pointer (array indices matched by `*`), or a generic one. */
export function fieldRule(pointer: string): FieldRule {
  const key = pointer === "" ? "/" : pointer.replace(/\/\d+(?=\/|$)/g, "/*");
  return (
    FIELD_RULES[key] ?? {
      allowed: "no such member (declarations are closed)",
      fix: "remove the member; see docs/adapters.md for the fields",
    }
  );
}

/** A short description of a value for an error message (never the whole of a long value). */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  switch (typeof value) {
    case "string":
      return value.length <= 40 ? JSON.stringify(value) : `a string of ${value.length} characters`;
    case "number":
    case "boolean":
      return String(value);
    case "object":
      return "an object";
    case "bigint":
    case "function":
    case "symbol":
    case "undefined":
      return `a ${typeof value}`;
  }
  return "a value";
}
