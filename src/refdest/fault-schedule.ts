/**
 * refdest/fault-schedule — the fault entries that make the reference destination fail on cue
 * (§5.7). An entry `{fault, match:{op?, nth_request?, client_ref?, effect_type?}, param?, once?}`
 * fires on the first request that matches every key it names; an empty match never fires.
 * The first unconsumed matching entry wins; a `once` entry (the default) is then consumed.
 *
 * Deliberate refinement of the reference: an entry only matches requests of an operation its
 * fault can act on (see FAULT_OPS), so e.g. a READ_LAG entry keyed on a client_ref is not eaten
 * by a status query for that client_ref before the create it was meant for arrives.
 * Entries are validated with zod; a bad entry is rejected with the path of the bad field.
 * Imports: core.
 */
import { z } from "zod";
import { IrrevonError } from "../core/errors.js";
import { REFDEST_OPS, type RefdestOp } from "./wire-types.js";

export const FaultKind = {
  DROP_RESPONSE_BEFORE_COMMIT: "DROP_RESPONSE_BEFORE_COMMIT",
  DROP_RESPONSE_AFTER_COMMIT: "DROP_RESPONSE_AFTER_COMMIT",
  ERROR_5XX_NO_COMMIT: "ERROR_5XX_NO_COMMIT",
  ERROR_5XX_AFTER_COMMIT: "ERROR_5XX_AFTER_COMMIT",
  DELAY: "DELAY",
  DUPLICATE_ACCEPT: "DUPLICATE_ACCEPT",
  THROTTLE_429: "THROTTLE_429",
  READ_LAG: "READ_LAG",
  LIST_FILTER_QUIRK: "LIST_FILTER_QUIRK",
  ENRICHMENT_QUIRK: "ENRICHMENT_QUIRK",
} as const;
export type FaultKind = (typeof FaultKind)[keyof typeof FaultKind];
export const FAULT_KINDS = Object.values(FaultKind);

/** A DELAY waits real milliseconds (so deadline tests are quick); capped to keep a run bounded. */
export const DEFAULT_DELAY_MS = 2_000;
export const MAX_DELAY_MS = 30_000;
/** Upper bound of the schedule, so a control client cannot exhaust memory. */
export const MAX_SCHEDULE_ENTRIES = 10_000;

/** Reads: a batch status lookup (`query_batch`) takes the same faults as a single one. */
const READS: readonly RefdestOp[] = ["get", "query", "query_batch", "list"];
const WIRE_FAULT_OPS: readonly RefdestOp[] = ["create", "notify", ...READS];

/** Which operations each fault can act on; an entry never matches any other operation. */
export const FAULT_OPS: Readonly<Record<FaultKind, readonly RefdestOp[]>> = {
  DROP_RESPONSE_BEFORE_COMMIT: WIRE_FAULT_OPS,
  DROP_RESPONSE_AFTER_COMMIT: WIRE_FAULT_OPS,
  ERROR_5XX_NO_COMMIT: WIRE_FAULT_OPS,
  ERROR_5XX_AFTER_COMMIT: WIRE_FAULT_OPS,
  DELAY: WIRE_FAULT_OPS,
  THROTTLE_429: WIRE_FAULT_OPS,
  DUPLICATE_ACCEPT: ["create", "notify", "oob"],
  READ_LAG: ["create", "oob"],
  LIST_FILTER_QUIRK: ["create", "oob"],
  ENRICHMENT_QUIRK: ["create", "notify", "oob"],
};

const matchSchema = z.strictObject({
  op: z.enum(REFDEST_OPS as [RefdestOp, ...RefdestOp[]]).optional(),
  nth_request: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  client_ref: z.string().min(1).max(500).optional(),
  effect_type: z.string().min(1).max(200).optional(),
});

const once = z.boolean().optional();
const noParam = z.strictObject({}).optional();

function plainEntry<K extends FaultKind>(fault: K) {
  return z.strictObject({ fault: z.literal(fault), match: matchSchema, param: noParam, once });
}

const entrySchema = z.discriminatedUnion("fault", [
  plainEntry("DROP_RESPONSE_BEFORE_COMMIT"),
  plainEntry("DROP_RESPONSE_AFTER_COMMIT"),
  plainEntry("ERROR_5XX_NO_COMMIT"),
  plainEntry("ERROR_5XX_AFTER_COMMIT"),
  plainEntry("DUPLICATE_ACCEPT"),
  plainEntry("THROTTLE_429"),
  plainEntry("LIST_FILTER_QUIRK"),
  plainEntry("ENRICHMENT_QUIRK"),
  z.strictObject({
    fault: z.literal("DELAY"),
    match: matchSchema,
    param: z
      .strictObject({
        ms: z.number().int().min(0).max(MAX_DELAY_MS).optional(),
        commit: z.boolean().optional(),
      })
      .optional(),
    once,
  }),
  z.strictObject({
    fault: z.literal("READ_LAG"),
    match: matchSchema,
    param: z.strictObject({
      seconds: z
        .number()
        .int()
        .min(0)
        .max(10 * 365 * 86_400),
    }),
    once,
  }),
]);

/** A validated fault entry as accepted on the wire. */
export type FaultEntry = z.infer<typeof entrySchema>;

/** A fault that fired for one request, with its parameters resolved. */
export type FiredFault =
  | { readonly fault: Exclude<FaultKind, "DELAY" | "READ_LAG"> }
  | { readonly fault: "DELAY"; readonly delayMs: number; readonly commit: boolean }
  | { readonly fault: "READ_LAG"; readonly lagSeconds: number };

/** What a request offers to be matched against. */
export interface MatchContext {
  readonly op: RefdestOp;
  readonly seq: number;
  readonly clientRef: string | null;
  readonly effectType: string | null;
}

/**
 * Validate a list of raw entries. Throws IrrevonError `config_invalid` whose details name
 * the offending field as a dotted path (`entries.0.param.seconds`).
 */
export function parseFaultEntries(raw: unknown): FaultEntry[] {
  const parsed = z.array(entrySchema).max(MAX_SCHEDULE_ENTRIES).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = ["entries", ...(issue?.path ?? []).map(String)];
    if (issue?.code === "unrecognized_keys") path.push(issue.keys[0] ?? "");
    const field = path.join(".");
    throw new IrrevonError(
      "config_invalid",
      `fault schedule entry invalid at ${field}: ${issue?.message ?? "invalid"}`,
      {
        details: { field },
      },
    );
  }
  return parsed.data;
}

function matches(entry: FaultEntry, ctx: MatchContext): boolean {
  const m = entry.match;
  if (
    m.op === undefined &&
    m.nth_request === undefined &&
    m.client_ref === undefined &&
    m.effect_type === undefined
  ) {
    return false; // an empty match never fires
  }
  if (!FAULT_OPS[entry.fault].includes(ctx.op)) return false;
  if (m.op !== undefined && m.op !== ctx.op) return false;
  if (m.nth_request !== undefined && m.nth_request !== ctx.seq) return false;
  if (m.client_ref !== undefined && m.client_ref !== ctx.clientRef) return false;
  if (m.effect_type !== undefined && m.effect_type !== ctx.effectType) return false;
  return true;
}

function fire(entry: FaultEntry): FiredFault {
  switch (entry.fault) {
    case "DELAY":
      return {
        fault: "DELAY",
        delayMs: entry.param?.ms ?? DEFAULT_DELAY_MS,
        commit: entry.param?.commit ?? true,
      };
    case "READ_LAG":
      return { fault: "READ_LAG", lagSeconds: entry.param.seconds };
    case "DROP_RESPONSE_BEFORE_COMMIT":
    case "DROP_RESPONSE_AFTER_COMMIT":
    case "ERROR_5XX_NO_COMMIT":
    case "ERROR_5XX_AFTER_COMMIT":
    case "DUPLICATE_ACCEPT":
    case "THROTTLE_429":
    case "LIST_FILTER_QUIRK":
    case "ENRICHMENT_QUIRK":
      return { fault: entry.fault };
  }
}

/** The ordered schedule with consumption state. */
export class FaultSchedule {
  #entries: Array<{ readonly entry: FaultEntry; consumed: boolean }> = [];

  /** Append validated entries (or replace the whole schedule). */
  add(entries: readonly FaultEntry[], replace = false): void {
    if (replace) this.#entries = [];
    if (this.#entries.length + entries.length > MAX_SCHEDULE_ENTRIES) {
      throw new IrrevonError(
        "config_invalid",
        `fault schedule holds at most ${MAX_SCHEDULE_ENTRIES} entries`,
        {
          details: { field: "entries", limit: MAX_SCHEDULE_ENTRIES },
        },
      );
    }
    for (const entry of entries) this.#entries.push({ entry, consumed: false });
  }

  clear(): void {
    this.#entries = [];
  }

  /** Find, consume (if once) and return the fault for this request, or null. */
  take(ctx: MatchContext): FiredFault | null {
    for (const slot of this.#entries) {
      if (slot.consumed || !matches(slot.entry, ctx)) continue;
      if (slot.entry.once !== false) slot.consumed = true;
      return fire(slot.entry);
    }
    return null;
  }

  /** The schedule as data, for the control API. */
  snapshot(): Array<{
    readonly index: number;
    readonly entry: FaultEntry;
    readonly consumed: boolean;
  }> {
    return this.#entries.map((s, index) => ({ index, entry: s.entry, consumed: s.consumed }));
  }

  get pendingCount(): number {
    return this.#entries.filter((s) => !s.consumed).length;
  }
}
