/**
 * A transaction whose BEGIN travels with its first statement (`beginWithFirstStatement`) and
 * whose COMMIT travels with its last (`commitWith`) behaves, on both backends, exactly as one
 * sent statement by statement: what fails commits nothing, a read-only transaction stays
 * read-only, nothing may follow the committing statement, and every value arrives unchanged
 * (on a server the values are written into the SQL text: quotes, backslashes and `$n` inside a
 * value must not change it).
 */
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ErrorCode } from "../../src/core/errors.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { expectDbError } from "../support/expect-db-error.js";

const INSERT = "INSERT INTO deny_entries (scope, reason) VALUES ($1, $2) RETURNING deny_id AS id";

describeEachBackend("shared round trips: BEGIN with the first statement, COMMIT with the last", (backend) => {
  let l: TestLedger;
  beforeAll(async () => {
    l = await openTestLedger(backend);
  });
  afterAll(async () => {
    await l.close();
  });
  const countIn = async (scope: string): Promise<number> => {
    const { rows } = await l.superuser.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM deny_entries WHERE scope = $1",
      [scope],
    );
    return rows[0]?.n ?? -1;
  };

  it("commits what ran before and with commitWith, and returns the last statement's rows", async () => {
    const scope = `${backend}-commit`;
    const id = await l.app.transaction(
      async (tx) => {
        await tx.query(INSERT, [scope, "first"]);
        const { rows } = await tx.commitWith<{ id: number }>(INSERT, [scope, "last"]);
        return rows[0]?.id;
      },
      { beginWithFirstStatement: true },
    );
    expect(typeof id).toBe("number");
    expect(await countIn(scope)).toBe(2);
  });

  it("a failing last statement commits nothing", async () => {
    const scope = `${backend}-last-fails`;
    await expectDbError(
      l.app.transaction(async (tx) => {
        await tx.query(INSERT, [scope, "first"]);
        return tx.commitWith("SELECT 1 / $1::int AS x", [0]);
      }),
      ErrorCode.storage_error,
      "22012",
    );
    expect(await countIn(scope)).toBe(0);
  });

  it("a failing first statement that carried BEGIN commits nothing, and the handle stays usable", async () => {
    const scope = `${backend}-first-fails`;
    await expectDbError(
      l.app.transaction(
        async (tx) => {
          await tx.query("SELECT 1 / $1::int AS x", [0]);
          await tx.query(INSERT, [scope, "never"]);
        },
        { beginWithFirstStatement: true },
      ),
      ErrorCode.storage_error,
      "22012",
    );
    expect(await countIn(scope)).toBe(0);
    await l.app.transaction(async (tx) => tx.query(INSERT, [scope, "after"]), {
      beginWithFirstStatement: true,
    });
    expect(await countIn(scope)).toBe(1);
  });

  it("a statement after commitWith is refused (internal); what commitWith committed stays", async () => {
    const scope = `${backend}-after-commit`;
    await expectDbError(
      l.app.transaction(async (tx) => {
        await tx.commitWith(INSERT, [scope, "committed"]);
        await tx.query(INSERT, [scope, "refused"]);
      }),
      ErrorCode.internal,
    );
    expect(await countIn(scope)).toBe(1);
  });

  it("a statement whose text cannot share a round trip is refused before anything is written", async () => {
    const scope = `${backend}-not-inlinable`;
    await expectDbError(
      l.app.transaction(async (tx) => {
        await tx.query(INSERT, [scope, "first"]);
        await tx.commitWith("INSERT INTO deny_entries (scope, reason) VALUES ($1, 'literal')", [scope]);
      }),
      ErrorCode.internal,
    );
    await expectDbError(
      l.app.transaction(async (tx) => tx.query("SELECT 'x' AS y, $1::text AS z", [scope]), {
        beginWithFirstStatement: true,
      }),
      ErrorCode.internal,
    );
    expect(await countIn(scope)).toBe(0);
  });

  it("a read-only transaction stays read-only when BEGIN travels with the first statement", async () => {
    const scope = `${backend}-read-only`;
    await expectDbError(
      l.app.transaction(async (tx) => tx.query(INSERT, [scope, "refused"]), {
        readOnly: true,
        beginWithFirstStatement: true,
      }),
      ErrorCode.privilege_denied,
      "25006",
    );
    expect(await countIn(scope)).toBe(0);
  });

  it("a callback that runs no statement sends nothing and returns its value", async () => {
    await expect(
      l.app.transaction(async () => "nothing to do", { beginWithFirstStatement: true }),
    ).resolves.toBe("nothing to do");
    // The pooled connection is not left inside a transaction.
    const { rows } = await l.app.query<{ t: string }>("SELECT now()::text AS t");
    expect(rows).toHaveLength(1);
  });

  it("a NUL character is refused as the server refuses it, and nothing is written", async () => {
    const scope = `${backend}-nul`;
    await expectDbError(
      l.app.transaction(async (tx) => {
        await tx.query(INSERT, [scope, "first"]);
        await tx.commitWith(INSERT, [scope, "a\u0000b"]);
      }),
      ErrorCode.storage_error,
      "22021",
    );
    expect(await countIn(scope)).toBe(0);
  });

  it("every value arrives unchanged: quotes, backslashes, $n, semicolons, comments, unicode", async () => {
    const text = fc.string({ unit: "binary", maxLength: 40 }).filter((s) => !s.includes("\u0000"));
    const tricky = fc.constantFrom("'", "''", "\\", "\\'", "E'x'", "$1", "$$", "--", "/*", ";", "é", "😀");
    const value = fc.array(fc.oneof(text, tricky), { maxLength: 6 }).map((parts) => parts.join(""));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(value, fc.integer(), fc.boolean(), async (reason, int, flag) => {
        n += 1;
        const scope = `${backend}-exact-${n}`;
        const row = await l.app.transaction(
          async (tx) => {
            await tx.query(INSERT, [scope, reason]);
            const { rows } = await tx.commitWith<{ reason: string; i: number; b: boolean; z: null }>(
              "SELECT reason, $2::int AS i, $3::boolean AS b, $4::text AS z FROM deny_entries WHERE scope = $1",
              [scope, int, flag, null],
            );
            return rows[0];
          },
          { beginWithFirstStatement: true },
        );
        expect(row).toEqual({ reason, i: int, b: flag, z: null });
      }),
      { numRuns: 60 },
    );
  });
});
