/**
 * engine/gated-db: recovery's lanes take turns at the ledger. At most `max` statements or
 * transactions are at the database at once, waiters go in arrival order, a statement run from
 * inside a transaction that holds a turn passes (the gate never deadlocks on itself), a failure
 * gives its turn back, and handles from `as()` share the same gate.
 */
import { describe, expect, it } from "vitest";
import type { Db, QueryResult, TransactionQueryable } from "../../src/db/db.js";
import { gatedDb } from "../../src/engine/gated-db.js";

/** A fake ledger whose every call waits for the test to let it finish; it counts overlap. */
function fakeDb() {
  const state = { running: 0, peak: 0, started: [] as string[], release: [] as Array<() => void> };
  const hold = async <T>(label: string, value: T): Promise<T> => {
    state.running += 1;
    state.peak = Math.max(state.peak, state.running);
    state.started.push(label);
    await new Promise<void>((r) => state.release.push(r));
    state.running -= 1;
    if (label.startsWith("fail")) throw new Error(label);
    return value;
  };
  const db: Db = {
    backend: "postgres",
    role: "irrevon_app",
    query: <R>(sql: string) => hold(sql, { rows: [], rowCount: 0 } as QueryResult<R>),
    transaction: async <T>(fn: (tx: TransactionQueryable) => Promise<T>) => {
      const tx = {
        query: <R>() => Promise.resolve({ rows: [], rowCount: 0 } as QueryResult<R>),
        commitWith: <R>() => Promise.resolve({ rows: [], rowCount: 0 } as QueryResult<R>),
      };
      await hold("tx", null);
      return fn(tx);
    },
    as: () => db,
    close: () => Promise.resolve(),
  };
  return { db, state };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

async function drain(state: ReturnType<typeof fakeDb>["state"]): Promise<void> {
  // Calls start a turn later (a turn is granted asynchronously): keep turning for a while.
  for (let i = 0; i < 30; i++) {
    state.release.splice(0).forEach((r) => r());
    await tick();
  }
}

describe("gatedDb", () => {
  it("keeps at most max calls at the database, serving waiters in arrival order", async () => {
    const { db, state } = fakeDb();
    const gated = gatedDb(db, 2);
    const calls = ["a", "b", "c", "d", "e"].map((l) => gated.query(l));
    await tick();
    expect(state.started).toEqual(["a", "b"]);
    state.release.shift()?.();
    await tick();
    expect(state.started).toEqual(["a", "b", "c"]);
    await drain(state);
    await Promise.all(calls);
    expect(state.peak).toBe(2);
    expect(state.started).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("a statement from inside a transaction's turn passes; handles from as() share the gate", async () => {
    const { db, state } = fakeDb();
    const gated = gatedDb(db, 1);
    const inner: string[] = [];
    const tx = gated.transaction(async () => {
      // Through the outer handle, while this async context holds the only turn.
      await gated.as("irrevon_read").query("nested");
      inner.push("nested done");
      return 1;
    });
    const other = gated.as("irrevon_read").query("other");
    await drain(state);
    await expect(tx).resolves.toBe(1);
    await other;
    expect(inner).toEqual(["nested done"]);
    expect(state.started).toEqual(["tx", "nested", "other"]);
  });

  it("a failed call gives its turn back", async () => {
    const { db, state } = fakeDb();
    const gated = gatedDb(db, 1);
    const failed = gated.query("fail-1");
    failed.catch(() => undefined); // asserted below, after the drain
    const next = gated.query("after");
    await drain(state);
    await expect(failed).rejects.toThrow("fail-1");
    await expect(next).resolves.toMatchObject({ rowCount: 0 });
  });
});
