/**
 * testing/conformance-checks — the adapter conformance checks, one function each. Every check
 * gets a fresh harness, drives the adapter exactly as the engine would (validatePayload, one
 * dispatch, status queries by the declared keys, list pages) and compares what it sees with
 * what the declaration promises: a lost response is ambiguous and findable, a "none" is ABSENT
 * (not an error), a committed effect is visible once the declared lag has passed (never ABSENT
 * after it), and a list returns every effect exactly once across pages. The batch status checks
 * live in conformance-batch-checks. Imports: adapters, testing.
 */
import type {
  Adapter,
  CapabilityDeclaration,
  DispatchOrder,
  DispatchResult,
  ListedEffect,
  QueryKey,
  StatusResult,
} from "../adapters/contract.js";
import {
  declarationDigest,
  loadDeclaration,
  parseIsoDurationSeconds,
} from "../adapters/declaration.js";
import type {
  ConformanceCheck,
  ConformanceCheckName,
  ConformanceHarness,
} from "./conformance-types.js";

/** What a check works with. */
export interface CheckContext {
  readonly h: ConformanceHarness;
  readonly a: Adapter;
  readonly d: CapabilityDeclaration;
  readonly deadlineMs: number;
  readonly run: string;
  readonly order: (i: number) => {
    readonly effectType: string;
    readonly payload: Readonly<Record<string, unknown>>;
  };
  readonly listEffectsCount: number;
  readonly nullLagMs: number;
}
export type Verdict = Omit<ConformanceCheck, "name">;
export const pass = (reason: string): Verdict => ({ status: "pass", reason });
export const fail = (reason: string): Verdict => ({ status: "fail", reason });
export const skip = (reason: string): Verdict => ({ status: "skip", reason });

/** A failed step: the check ends with this reason. */
export class StepFailed extends Error {}

const lagMs = (lag: string | null): number | null =>
  lag === null ? null : parseIsoDurationSeconds(lag) * 1000;
const keys = (c: CheckContext): readonly string[] => c.d.queryable.by;
export const show = (r: StatusResult): string =>
  `${r.result} (n=${String(r.nFound)}${r.destinationRefs.length > 0 ? `, refs ${r.destinationRefs.join(", ")}` : ""})`;

function makeOrder(c: CheckContext, i: number): DispatchOrder {
  const { effectType, payload } = c.order(i);
  const id = `conf-${c.run}-${i}`;
  return { operationId: id, effectType, payload, clientRef: id, idempotencyKey: id, stableIds: {} };
}

async function send(c: CheckContext, o: DispatchOrder): Promise<DispatchResult> {
  try {
    c.a.validatePayload(o.effectType, o.payload);
  } catch (e) {
    throw new StepFailed(
      `validatePayload refused the suite's order (${String(e)}); pass options.order with a payload your destination accepts`,
    );
  }
  return c.a.dispatch(o, c.deadlineMs);
}

/** Send and require OK. */
export async function create(
  c: CheckContext,
  i: number,
): Promise<{ order: DispatchOrder; ref: string | null }> {
  const order = makeOrder(c, i);
  const r = await send(c, order);
  if (r.transportOutcome !== "OK")
    throw new StepFailed(
      `a plain create (no fault injected) returned ${r.transportOutcome}, expected OK`,
    );
  return { order, ref: r.destinationRef ?? null };
}

export async function waitStatusLag(c: CheckContext): Promise<void> {
  const ms = lagMs(c.d.consistency.status_settlement_lag);
  if (ms !== null && ms > 0) await c.h.advanceMs(ms);
}

export function query(c: CheckContext, key: QueryKey): Promise<StatusResult> {
  return c.a.statusQuery(key, c.deadlineMs);
}

/** Every page of the harness's window; fails on a loop or a malformed effect. */
async function listAll(
  c: CheckContext,
  maxPages: number,
): Promise<{ effects: ListedEffect[]; pages: number }> {
  const window = c.h.listWindow?.() ?? { from: "2000-01-01T00:00:00Z", to: "2100-01-01T00:00:00Z" };
  const effects: ListedEffect[] = [];
  const seen = new Set<string>();
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = await c.a.listEffects(window, cursor, c.deadlineMs);
    pages += 1;
    for (const e of page.effects) {
      if (typeof e.destinationRef !== "string" || e.destinationRef === "")
        throw new StepFailed(`page ${pages} lists an effect without a destinationRef`);
    }
    effects.push(...page.effects);
    cursor = page.nextCursor;
    if (cursor !== null && seen.has(cursor))
      throw new StepFailed(`the list returned cursor ${cursor} twice (it would page forever)`);
    if (cursor !== null) seen.add(cursor);
    if (pages > maxPages) throw new StepFailed(`the list did not end within ${maxPages} pages`);
  } while (cursor !== null);
  return { effects, pages };
}

/** How often the created effect appears in a listing (by destination ref, else client ref). */
function occurrences(
  effects: readonly ListedEffect[],
  ref: string | null,
  clientRef: string,
): number {
  return effects.filter((e) =>
    ref !== null ? e.destinationRef === ref : e.clientRef === clientRef,
  ).length;
}

export type Check = (c: CheckContext) => Promise<Verdict>;

const declarationValid: Check = (c) => {
  const d = loadDeclaration(c.a.declare());
  if (c.a.adapterId !== d.adapter)
    return Promise.resolve(
      fail(`adapterId "${c.a.adapterId}" differs from declaration.adapter "${d.adapter}"`),
    );
  if (declarationDigest(c.a.declare()) !== declarationDigest(d))
    return Promise.resolve(fail("declare() returns a different declaration on each call"));
  return Promise.resolve(pass(`tier ${d.tier}, adapter ${d.adapter}`));
};

const declarationQueryable: Check = async (c) => {
  if (!c.d.queryable.supported)
    return skip(`not queryable (tier ${c.d.tier}): an ambiguous create goes to a human`);
  const { order, ref } = await create(c, 0);
  await waitStatusLag(c);
  const tried: string[] = [];
  for (const k of keys(c)) {
    if (k === "destination_ref") {
      if (ref === null)
        return fail(
          "declares queryable by destination_ref, but create returned no destinationRef to query by",
        );
      const r = await query(c, { kind: "destination_ref", value: ref });
      if (r.result !== "PRESENT" || r.nFound !== 1 || !r.destinationRefs.includes(ref))
        return fail(
          `declares queryable by destination_ref, but the committed effect ${ref} was reported ${show(r)}`,
        );
      tried.push(k);
    } else if (k === "client_ref") {
      const r = await query(c, { kind: "client_ref", value: order.clientRef });
      if (
        r.result !== "PRESENT" ||
        r.nFound !== 1 ||
        (ref !== null && !r.destinationRefs.includes(ref))
      )
        return fail(
          `declares queryable by client_ref, but the committed create was reported ${show(r)}`,
        );
      tried.push(k);
    }
  }
  const untried = keys(c).filter((k) => !tried.includes(k));
  return pass(
    `a committed create is found PRESENT n=1 by ${tried.join(", ")}${untried.length > 0 ? ` (not exercised: ${untried.join(", ")})` : ""}`,
  );
};

const declarationListQueryable: Check = async (c) => {
  const window = c.h.listWindow?.() ?? { from: "2000-01-01T00:00:00Z", to: "2100-01-01T00:00:00Z" };
  if (!c.d.list_queryable) {
    try {
      await c.a.listEffects(window, null, c.deadlineMs);
    } catch {
      return pass("declares list_queryable false and listEffects refuses");
    }
    return fail(
      "declares list_queryable false but listEffects returned a page (an empty page reads as 'no effects')",
    );
  }
  const { order, ref } = await create(c, 0);
  const lag = lagMs(c.d.consistency.listing_lag);
  if (lag !== null && lag > 0) await c.h.advanceMs(lag);
  const { effects } = await listAll(c, 1000);
  const n = occurrences(effects, ref, order.clientRef);
  return n === 1
    ? pass("a committed create is listed once")
    : fail(`declares list_queryable true, but a committed create is listed ${n} times`);
};

const declarationIdempotency: Check = async (c) => {
  if (!c.d.idempotency.supported) return skip(`no idempotency key declared (tier ${c.d.tier})`);
  const { order, ref } = await create(c, 0);
  const again = await send(c, order);
  if (again.transportOutcome !== "OK")
    return fail(
      `declares idempotency, but re-sending the same key returned ${again.transportOutcome}, expected OK (a replay)`,
    );
  if (ref !== null && again.destinationRef !== ref)
    return fail(
      `declares idempotency, but re-sending the same key returned ref ${String(again.destinationRef)} instead of ${ref}`,
    );
  if (keys(c).includes("client_ref")) {
    await waitStatusLag(c);
    const r = await query(c, { kind: "client_ref", value: order.clientRef });
    if (r.nFound !== 1)
      return fail(`declares idempotency, but two sends of one key left ${show(r)}`);
  }
  return pass("re-sending the same key replays the first outcome; nothing new is created");
};

function notFound(kind: "client_ref" | "destination_ref"): Check {
  return async (c) => {
    if (!keys(c).includes(kind)) return skip(`not queryable by ${kind}`);
    const value =
      kind === "client_ref"
        ? `conf-${c.run}-never-created`
        : (c.h.unknownDestinationRef ?? "irrevon-conformance-missing-ref");
    let r: StatusResult;
    try {
      r = await query(c, { kind, value });
    } catch (e) {
      return fail(
        `a ${kind} that names nothing made statusQuery throw (${String(e)}); a 404 / empty result must be ABSENT`,
      );
    }
    if (r.result === "ABSENT" && r.nFound === 0 && r.destinationRefs.length === 0)
      return pass(`a ${kind} that names nothing is ABSENT (n=0)`);
    return fail(
      `a ${kind} that names nothing was reported ${show(r)}; a 404 / empty result must be ABSENT with n=0 (otherwise no lost response can ever settle)`,
    );
  };
}

const lostResponseOutcome: Check = async (c) => {
  await c.h.dropNextResponse();
  const r = await send(c, makeOrder(c, 0));
  if (r.transportOutcome === "LOST" || r.transportOutcome === "TIMEOUT")
    return pass(`a dropped response is ${r.transportOutcome} (ambiguous)`);
  return fail(
    `a create whose response was dropped returned ${r.transportOutcome}; it must be LOST or TIMEOUT (the create may have committed${r.transportOutcome === "FAILED" ? ": FAILED lets the engine re-send and duplicate it" : ""})`,
  );
};

const lostResponseFound: Check = async (c) => {
  if (!keys(c).includes("client_ref"))
    return skip(
      "not queryable by client_ref: after a lost response the engine has no key (C1 replays the key instead)",
    );
  await c.h.dropNextResponse();
  const order = makeOrder(c, 0);
  await send(c, order);
  await waitStatusLag(c);
  const r = await query(c, { kind: "client_ref", value: order.clientRef });
  if (r.result !== "PRESENT" || r.nFound !== 1)
    return fail(
      `a create that committed but lost its response was reported ${show(r)} by client_ref; expected PRESENT n=1`,
    );
  if (c.d.idempotency.supported) {
    const replay = await send(c, order);
    if (
      replay.transportOutcome !== "OK" ||
      (replay.destinationRef !== undefined && !r.destinationRefs.includes(replay.destinationRef))
    ) {
      return fail(
        `a replay of the lost create's key returned ${replay.transportOutcome} ref ${String(replay.destinationRef)}; expected OK with ${r.destinationRefs.join(", ")}`,
      );
    }
  }
  return pass(
    `a lost response is found by client_ref (PRESENT n=1${c.d.idempotency.supported ? "; the key replays it" : ""})`,
  );
};

const readLag: Check = async (c) => {
  const k = keys(c).find((x) => x === "client_ref" || x === "destination_ref");
  if (k === undefined) return skip("not queryable by client_ref or destination_ref");
  const declared = lagMs(c.d.consistency.status_settlement_lag);
  const lag = declared ?? c.nullLagMs;
  const lagText = c.d.consistency.status_settlement_lag ?? "null (unbounded)";
  await c.h.setReadLagMs(lag);
  const { order, ref } = await create(c, 0);
  if (k === "destination_ref" && ref === null)
    return fail("declares queryable by destination_ref, but create returned no destinationRef");
  const key: QueryKey =
    k === "client_ref"
      ? { kind: "client_ref", value: order.clientRef }
      : { kind: "destination_ref", value: ref as string };
  const early = await query(c, key);
  if (early.result === "ABSENT" && declared === 0)
    return fail(
      `reported ABSENT right after a committed create while declaring status_settlement_lag ${lagText}: the engine would confirm absence and re-send (duplicate); declare the destination's lag`,
    );
  await c.h.advanceMs(lag);
  const late = await query(c, key);
  if (late.result === "PRESENT" && late.nFound === 1)
    return pass(
      `with ${lag} ms of read lag (declared ${lagText}): ${early.result} at once, PRESENT after the lag`,
    );
  return fail(
    `still ${show(late)} by ${k} ${lag} ms after a committed create (declared status_settlement_lag ${lagText}); after the declared lag it must be PRESENT${late.result === "ABSENT" ? " (ABSENT now makes the engine confirm absence and re-send: a duplicate)" : ""}`,
  );
};

const listPagination: Check = async (c) => {
  if (!c.d.list_queryable) return skip("not list_queryable");
  const n = c.listEffectsCount;
  const created: Array<{ order: DispatchOrder; ref: string | null }> = [];
  for (let i = 0; i < n; i += 1) created.push(await create(c, i));
  const lag = lagMs(c.d.consistency.listing_lag);
  if (lag !== null && lag > 0) await c.h.advanceMs(lag);
  const { effects, pages } = await listAll(c, n + 10);
  const missing = created.filter((x) => occurrences(effects, x.ref, x.order.clientRef) === 0);
  const twice = created.filter((x) => occurrences(effects, x.ref, x.order.clientRef) > 1);
  if (missing.length > 0 || twice.length > 0) {
    return fail(
      `listing ${n} effects over ${pages} page(s): ${missing.length} missing, ${twice.length} listed more than once${missing[0] === undefined ? "" : ` (first missing: ${missing[0].ref ?? missing[0].order.clientRef})`}`,
    );
  }
  if (pages < 2)
    return fail(
      `all ${n} effects came back in one page, so pagination was not exercised; set options.listEffectsCount above the adapter's page size`,
    );
  return pass(`${n} effects listed over ${pages} pages, each exactly once`);
};

/** The checks of this file; the batch checks (`batch.*`) are in conformance-batch-checks. */
export const CHECKS: Readonly<Record<Exclude<ConformanceCheckName, `batch.${string}`>, Check>> = {
  "declaration.valid": declarationValid,
  "declaration.queryable": declarationQueryable,
  "declaration.list_queryable": declarationListQueryable,
  "declaration.idempotency": declarationIdempotency,
  "not_found.client_ref": notFound("client_ref"),
  "not_found.destination_ref": notFound("destination_ref"),
  "lost_response.outcome": lostResponseOutcome,
  "lost_response.found_by_client_ref": lostResponseFound,
  "read_lag.visible_after_declared_lag": readLag,
  "list.pagination": listPagination,
};

/** Grace beyond an adapter call's deadline before the suite calls it hung. */
export const DEADLINE_GRACE_MS = 2000;

/**
 * The adapter with every wire method bounded: a call still unsettled `DEADLINE_GRACE_MS` after
 * its deadline fails the check (the contract says a call ends at its deadline).
 */
export function deadlineBounded(a: Adapter): Adapter {
  const bounded = <T>(method: string, deadlineMs: number, p: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(
          new StepFailed(
            `${method} did not settle within its deadline (${deadlineMs} ms) + ${DEADLINE_GRACE_MS} ms: an adapter must end its call at the deadline`,
          ),
        );
      }, deadlineMs + DEADLINE_GRACE_MS);
    });
    return Promise.race([p, limit]).finally(() => clearTimeout(timer));
  };
  const batch = a.statusQueryBatch;
  return {
    adapterId: a.adapterId,
    declare: () => a.declare(),
    validatePayload: (t, p) => a.validatePayload(t, p),
    dispatch: (o, d, s) => bounded("dispatch", d, a.dispatch(o, d, s)),
    statusQuery: (k, d, s) => bounded("statusQuery", d, a.statusQuery(k, d, s)),
    ...(typeof batch === "function"
      ? {
          statusQueryBatch: (k: readonly QueryKey[], d: number, s?: AbortSignal) =>
            bounded("statusQueryBatch", d, batch.call(a, k, d, s)),
        }
      : {}),
    listEffects: (w, c, d) => bounded("listEffects", d, a.listEffects(w, c, d)),
  };
}

/** A check's own failure reason, or null when the error is not one. */
export function stepFailure(e: unknown): string | null {
  return e instanceof StepFailed ? e.message : null;
}
