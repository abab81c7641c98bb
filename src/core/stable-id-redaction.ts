/**
 * core/stable-id-redaction — the CLI and the workbench never show a stable-id *value* (reference
 * ADR-0036, spec README §1 item 9): every value is rendered as
 * `"sha256:" + hex(SHA-256(UTF-8 raw value))` (not JCS), keys kept. Used on every JSON body
 * and on every view model before it becomes HTML.
 *
 * Two passes. The structural pass (what `irrevon inspect --json` prints without `--reveal`): `stable_ids` values digested, the
 * identity preimage `contract_canonical` (which embeds them) replaced by its own digest and
 * flagged `contract_canonical_redacted`. The safety pass walks every other string and digests an exact
 * occurrence of a raw value (a probe's `stable_id` query key, a destination ref that happens
 * to be the order number), and an embedded occurrence inside longer free text (an endpoint
 * URL in evidence). Embedded matching skips values shorter than {@link MIN_EMBEDDED_LENGTH}
 * (a one-letter id would shred every word) and hash-shaped strings (a digest is not a carrier
 * of raw values, and rewriting it would only corrupt it). Closed-set names (states, classes,
 * actors) are left alone: they are vocabulary, and digesting `SETTLED_COMMITTED` because some
 * id happens to equal it would break the views. Imports: core.
 */
import { sha256Hex } from "./canonical.js";
import {
  ACTORS,
  CLASSIFICATIONS,
  EFFECT_CLASSES,
  LIFECYCLE_STATES,
  RESOLUTION_STATUSES,
  AttemptKind,
  Cause,
  ExecutionOpener,
  FailureKind,
  FindingCreator,
  GateCheck,
  GateVariant,
  ProbeKind,
  ProbeResult,
  ReceiptRecorder,
  ResolutionActor,
  TransportOutcome,
} from "./state-tables.js";
import { digestStableIds, stableIdValueDigest } from "./value-digest.js";

/** Raw values shorter than this are only digested where they are a whole string. */
export const MIN_EMBEDDED_LENGTH = 4;

/** The string values of a `stable_ids` object (anything else yields nothing). */
export function stableIdValues(stableIds: unknown): string[] {
  if (typeof stableIds !== "object" || stableIds === null || Array.isArray(stableIds)) return [];
  return Object.values(stableIds as Record<string, unknown>).filter(
    (v): v is string => typeof v === "string",
  );
}

const VOCABULARY: ReadonlySet<string> = new Set<string>([
  ...LIFECYCLE_STATES,
  ...CLASSIFICATIONS,
  ...RESOLUTION_STATUSES,
  ...ACTORS,
  ...EFFECT_CLASSES,
  "UNRECONCILED",
  ...Object.values(AttemptKind),
  ...Object.values(Cause),
  ...Object.values(ExecutionOpener),
  ...Object.values(FailureKind),
  ...Object.values(FindingCreator),
  ...Object.values(GateCheck),
  ...Object.values(GateVariant),
  ...Object.values(ProbeKind),
  ...Object.values(ProbeResult),
  ...Object.values(ReceiptRecorder),
  ...Object.values(ResolutionActor),
  ...Object.values(TransportOutcome),
  "ALLOW",
  "DENY",
]);

/** Digests, effect ids and operation ids: never rewritten inside (see the header). */
const HASH_SHAPED = /^(?:sha256:)?[0-9a-f]{64}(?::\d+)?$/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** One pending value of the iterative redaction walk and where its copy goes. */
interface RedactJob {
  readonly value: unknown;
  readonly key: string | undefined;
  readonly put: (copy: unknown) => void;
}

/** Replaces raw stable-id values in arbitrary JSON-shaped data. Build once per response. */
export class StableIdRedactor {
  readonly #exact: ReadonlySet<string>;
  readonly #embedded: RegExp | null;

  constructor(rawValues: Iterable<string>) {
    const all = [...new Set(rawValues)].filter((v) => v.length > 0);
    this.#exact = new Set(all);
    const long = all
      .filter((v) => v.length >= MIN_EMBEDDED_LENGTH)
      .sort((a, b) => b.length - a.length);
    // One alternation, longest first, applied in a single pass: text a replacement inserted
    // (a digest) is never scanned again.
    this.#embedded = long.length === 0 ? null : new RegExp(long.map(escapeRegExp).join("|"), "g");
  }

  /**
   * A deep copy of `value` with every raw value digested (keys kept). Iterative: a stored
   * document is walked once, however deep or wide, without growing the call stack.
   */
  redact<T>(value: T): T {
    let result: unknown;
    const stack: RedactJob[] = [{ value, key: undefined, put: (out) => (result = out) }];
    while (stack.length > 0) {
      const { value: v, key, put } = stack.pop() as RedactJob;
      if (typeof v === "string") put(this.#string(v));
      else if (Array.isArray(v)) {
        const out: unknown[] = new Array<unknown>(v.length);
        put(out);
        for (let i = 0; i < v.length; i += 1) {
          stack.push({ value: v[i] as unknown, key: undefined, put: (x) => (out[i] = x) });
        }
      } else if (typeof v !== "object" || v === null) put(v);
      else if (key === "stable_ids") put(digestStableIds(v as Record<string, unknown>));
      else put(this.#object(v, stack));
    }
    return result as T;
  }

  /** Copies one object's members: strings of the preimage digested now, the rest queued. */
  #object(value: object, stack: RedactJob[]): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    let preimageRedacted = false;
    for (const [k, v] of Object.entries(value)) {
      if (k === "contract_canonical" && typeof v === "string") {
        out[k] = `sha256:${sha256Hex(v)}`;
        preimageRedacted = true;
      } else {
        out[k] = undefined; // keeps the member order; filled when the job runs
        stack.push({ value: v, key: k, put: (x) => (out[k] = x) });
      }
    }
    if (preimageRedacted && !("contract_canonical_redacted" in out))
      out["contract_canonical_redacted"] = true;
    return out;
  }

  #string(text: string): string {
    if (VOCABULARY.has(text)) return text;
    if (this.#exact.has(text)) return stableIdValueDigest(text);
    if (this.#embedded === null || HASH_SHAPED.test(text)) return text;
    return text.replace(this.#embedded, (raw) => stableIdValueDigest(raw));
  }
}

/**
 * Redacts `value` against its own stable ids (every `stable_ids` member found inside it)
 * plus `extraRawValues` (ids of records the caller read but did not include).
 */
export function redactStableIds<T>(value: T, extraRawValues: Iterable<string> = []): T {
  const raws = new Set<string>(extraRawValues);
  collectStableIdValues(value, raws);
  return new StableIdRedactor(raws).redact(value);
}

function collectStableIdValues(value: unknown, into: Set<string>): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next !== "object" || next === null) continue;
    if (Array.isArray(next)) {
      // One push per item: spreading a 200,000-item array into push() overflows the stack.
      for (const item of next as unknown[]) stack.push(item);
      continue;
    }
    for (const [k, v] of Object.entries(next)) {
      if (k === "stable_ids") for (const raw of stableIdValues(v)) into.add(raw);
      else if (k === "contract_canonical" && typeof v === "string") {
        try {
          for (const raw of stableIdValues(
            (JSON.parse(v) as Record<string, unknown>)["stable_ids"],
          ))
            into.add(raw);
        } catch {
          // not JSON: nothing to collect; the embedded pass still sees the known values
        }
      } else stack.push(v);
    }
  }
}
