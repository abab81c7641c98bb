/**
 * The workbench JSON API on both backends (through `app.request`, no socket): filters over
 * the three dimensions, keyset pagination that neither skips nor repeats, the one-effect
 * item, the inspect document (the CLI's redacted document, byte for byte), findings with
 * their latest resolution, declarations, health, HEAD, and the error answers (400 naming the
 * parameter, 404).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { redactStableIds } from "../../src/core/stable-id-redaction.js";
import { stableIdValueDigest } from "../../src/core/value-digest.js";
import { inspectEffect } from "../../src/ledger/inspect-effect.js";
import { createWorkbenchApp } from "../../src/workbench/app.js";
import { describeEachBackend, openTestLedger, type TestLedger } from "../support/databases.js";
import { seedWorkbenchLedger, type SeededLedger } from "../support/workbench-fixtures.js";

interface Item {
  record: {
    effect_id: string;
    lifecycle: string;
    stable_ids: Record<string, string>;
    created_at: string;
    operation_id: string;
    authority_ref: string;
  };
  classification: string;
  finding: { finding_id: string; resolution: { status: string } } | null;
}
interface ListBody<T> {
  schema_version: string;
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
  as_of: string;
}

describeEachBackend("workbench API", (backend) => {
  let ledger: TestLedger;
  let seeded: SeededLedger;
  let app: ReturnType<typeof createWorkbenchApp>;

  beforeAll(async () => {
    ledger = await openTestLedger(backend);
    seeded = await seedWorkbenchLedger(ledger);
    app = createWorkbenchApp({ db: ledger.read, port: 5180 });
  });
  afterAll(async () => {
    await ledger.close();
  });

  const get = (path: string, method = "GET"): Promise<Response> =>
    Promise.resolve(app.request(path, { method, headers: { host: "127.0.0.1:5180" } }));
  async function json<T>(path: string, status = 200): Promise<T> {
    const res = await get(path);
    expect(res.status, path).toBe(status);
    return (await res.json()) as T;
  }
  const ids = async (path: string): Promise<string[]> =>
    (await json<ListBody<Item>>(path)).data.map((i) => i.record.effect_id).sort();

  it("lists every effect newest first with the three dimensions", async () => {
    const body = await json<ListBody<Item>>("/api/v1/effects");
    expect(body.schema_version).toBe("1");
    expect(body.has_more).toBe(false);
    expect(body.next_cursor).toBeNull();
    expect(body.data).toHaveLength(5);
    const created = body.data.map((i) => i.record.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    const flagship = body.data.find((i) => i.record.effect_id === seeded.flagship);
    expect(flagship).toMatchObject({
      record: {
        lifecycle: "SETTLED_COMMITTED",
        operation_id: `${seeded.flagship}:0`,
        authority_ref: "auth_approved_task_18",
      },
      classification: "CONFIRMED_UNIQUE",
      finding: {
        finding_id: expect.stringMatching(/^fnd_\d{20}$/) as string,
        resolution: { status: "CLOSED" },
      },
    });
    expect(flagship?.record.stable_ids).toEqual({
      order_id: stableIdValueDigest("ORDER-RAW-FLAGSHIP-9410"),
      customer_ref: stableIdValueDigest("CUSTOMER-RAW-ALPHA-0007"),
    });
    expect(body.data.find((i) => i.record.effect_id === seeded.persisted)).toMatchObject({
      record: { lifecycle: "PERSISTED" },
      classification: "UNRECONCILED",
      finding: null,
    });
  });

  it("filters by lifecycle, classification (incl. UNRECONCILED), class, type, scope and time", async () => {
    expect(await ids("/api/v1/effects?lifecycle=SETTLED_COMMITTED")).toEqual(
      [seeded.flagship, seeded.settled].sort(),
    );
    expect(await ids("/api/v1/effects?lifecycle=AMBIGUOUS,PERSISTED")).toEqual(
      [seeded.ambiguous, seeded.persisted].sort(),
    );
    expect(await ids("/api/v1/effects?lifecycle=AMBIGUOUS&lifecycle=SETTLED_FAILED")).toEqual(
      [seeded.ambiguous, seeded.lost].sort(),
    );
    expect(await ids("/api/v1/effects?classification=UNRECONCILED")).toEqual(
      [seeded.settled, seeded.persisted, seeded.ambiguous].sort(),
    );
    expect(await ids("/api/v1/effects?classification=CONFIRMED_UNIQUE")).toEqual([seeded.flagship]);
    expect(await ids("/api/v1/effects?classification=LOST&lifecycle=SETTLED_FAILED")).toEqual([
      seeded.lost,
    ]);
    expect(
      await ids(
        "/api/v1/effects?effect_class=IRREVERSIBLE&effect_type=order.create&scope=acme-store%2Fprod",
      ),
    ).toHaveLength(5);
    expect(await ids("/api/v1/effects?effect_class=IDEMPOTENT")).toEqual([]);
    expect(await ids("/api/v1/effects?scope=other")).toEqual([]);
    expect(await ids("/api/v1/effects?from=2999-01-01T00:00:00Z")).toEqual([]);
    expect(await ids("/api/v1/effects?to=2000-01-01T00:00:00Z")).toEqual([]);
    expect(
      await ids("/api/v1/effects?from=2000-01-01T00:00:00Z&to=2999-01-01T00:00:00%2B02:00"),
    ).toHaveLength(5);
  });

  it("pages with an opaque cursor, neither skipping nor repeating", async () => {
    const all = (await json<ListBody<Item>>("/api/v1/effects")).data.map((i) => i.record.effect_id);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages += 1) {
      const page: ListBody<Item> = await json<ListBody<Item>>(
        `/api/v1/effects?limit=2${cursor === null ? "" : `&cursor=${cursor}`}`,
      );
      seen.push(...page.data.map((i) => i.record.effect_id));
      expect(page.data.length).toBeLessThanOrEqual(2);
      if (!page.has_more) break;
      cursor = page.next_cursor;
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    }
    expect(seen).toEqual(all);
  });

  it("shows one effect and its inspect document, identical to the CLI's redacted document", async () => {
    const one = await json<{ data: Item }>(`/api/v1/effects/${seeded.lost}`);
    expect(one.data).toMatchObject({
      record: { effect_id: seeded.lost, lifecycle: "SETTLED_FAILED" },
      classification: "LOST",
      finding: { resolution: { status: "OPEN" } },
    });

    const res = await get(`/api/v1/effects/${seeded.flagship}/inspect`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const expected = redactStableIds(await inspectEffect(ledger.read, seeded.flagship));
    expect(text).toBe(`${JSON.stringify(expected)}\n`);
    const doc = JSON.parse(text) as {
      dimensions: unknown;
      timeline: Array<{ to_state: string }>;
      parameter_variants: unknown[];
      record: Record<string, unknown>;
    };
    expect(doc.dimensions).toEqual({
      lifecycle: "SETTLED_COMMITTED",
      classification: "CONFIRMED_UNIQUE",
      resolution: "CLOSED",
    });
    expect(doc.timeline.map((t) => t.to_state)).toEqual([
      "INTENDED",
      "PERSISTED",
      "DISPATCHED",
      "AMBIGUOUS",
      "SETTLED_COMMITTED",
    ]);
    expect(doc.parameter_variants).toHaveLength(1);
    expect(doc.record["contract_canonical_redacted"]).toBe(true);
  });

  it("lists findings with their latest resolution, filtered and paged", async () => {
    interface F {
      finding_id: string;
      classification: string;
      subject: { effect_id?: string };
      evidence: { digest: string; bundle: null; redaction: string };
      resolution: { status: string; evidence_digest?: string };
    }
    const all = await json<ListBody<F>>("/api/v1/findings");
    expect(
      all.data.map((f) => [f.classification, f.resolution.status, f.subject.effect_id]),
    ).toEqual([
      ["LOST", "OPEN", seeded.lost],
      ["CONFIRMED_UNIQUE", "CLOSED", seeded.flagship],
    ]);
    expect(all.data[1]?.evidence).toMatchObject({
      bundle: null,
      redaction: "digest_only",
      digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) as string,
    });
    expect(all.data[1]?.resolution.evidence_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const open = await json<ListBody<F>>("/api/v1/findings?resolution_status=OPEN,ESCALATED_HUMAN");
    expect(open.data.map((f) => f.subject.effect_id)).toEqual([seeded.lost]);
    expect(
      (await json<ListBody<F>>(`/api/v1/findings?subject_effect_id=${seeded.flagship}`)).data,
    ).toHaveLength(1);
    expect(
      (
        await json<ListBody<F>>(
          "/api/v1/findings?adapter=refdest-c2&classification=LOST,CONFIRMED_UNIQUE",
        )
      ).data,
    ).toHaveLength(2);
    expect((await json<ListBody<F>>("/api/v1/findings?adapter=other")).data).toHaveLength(0);
    expect(
      (await json<ListBody<F>>("/api/v1/findings?destination_ref=dest_nothing")).data,
    ).toHaveLength(0);
    const first = await json<ListBody<F>>("/api/v1/findings?limit=1");
    expect(first.has_more).toBe(true);
    const second = await json<ListBody<F>>(
      `/api/v1/findings?limit=1&cursor=${first.next_cursor ?? ""}`,
    );
    expect([...first.data, ...second.data].map((f) => f.finding_id)).toEqual(
      all.data.map((f) => f.finding_id),
    );
    expect(second.has_more).toBe(false);
  });

  it("lists the packaged declarations with tier and lags, and the ledger's use of them", async () => {
    interface D {
      adapter_id: string;
      tier: string;
      declaration_digest: string;
      lags: { status_settlement_lag_seconds: number | null; listing_lag_seconds: number | null };
    }
    const body = await json<{
      data: D[];
      ledger: Array<{ adapter_id: string; declaration_digest: string; effects: number }>;
    }>("/api/v1/adapters");
    const c2 = body.data.find((d) => d.adapter_id === "refdest-c2");
    expect(c2).toMatchObject({
      tier: "C2",
      lags: { status_settlement_lag_seconds: 0, listing_lag_seconds: 0 },
    });
    expect(
      body.data.find((d) => d.adapter_id === "refdest-c2-lag30s")?.lags.listing_lag_seconds,
    ).toBe(30);
    expect(body.data.find((d) => d.tier === "C3")?.lags.status_settlement_lag_seconds).toBeNull();
    expect(body.ledger).toEqual([
      { adapter_id: "refdest-c2", declaration_digest: c2?.declaration_digest, effects: 5 },
    ]);
  });

  it("reports health and answers HEAD without a body", async () => {
    const health = await json<{ status: string; checks: Array<{ name: string; status: string }> }>(
      "/api/v1/health",
    );
    expect(health.status).toBe("ok");
    expect(health.checks.map((c) => `${c.name}:${c.status}`)).toEqual([
      "storage:ok",
      "read_role:ok",
      "read_only:ok",
      "schema:ok",
    ]);
    for (const path of ["/api/v1/effects", "/effects", `/effects/${seeded.flagship}`]) {
      const head = await get(path, "HEAD");
      expect(head.status).toBe(200);
      expect(await head.text()).toBe("");
    }
  });

  it.each([
    ["/api/v1/effects?lifecycle=DONE", "lifecycle"],
    ["/api/v1/effects?limit=0", "limit"],
    ["/api/v1/effects?limit=ten", "limit"],
    ["/api/v1/effects?cursor=%%%", "cursor"],
    ["/api/v1/effects?sort=asc", "sort"],
    ["/api/v1/findings?subject_effect_id=nope", "subject_effect_id"],
    ["/api/v1/findings?from=monday", "from"],
    [`/api/v1/effects/${"a".repeat(64)}?reveal=true`, "reveal"],
  ])("%s ⇒ 400 query_invalid naming %s", async (path, parameter) => {
    const body = await json<{ error: { code: string; details: { parameter: string } } }>(path, 400);
    expect(body.error.code).toBe("query_invalid");
    expect(body.error.details.parameter).toBe(parameter);
  });

  it("clamps a large limit instead of refusing it", async () => {
    expect((await json<ListBody<Item>>("/api/v1/effects?limit=100000")).data).toHaveLength(5);
  });

  it.each([
    `/api/v1/effects/${"0".repeat(64)}`,
    `/api/v1/effects/${"0".repeat(64)}/inspect`,
    "/api/v1/effects/ABC",
    "/api/v1/nothing",
    "/api",
  ])("%s ⇒ 404 not_found", async (path) => {
    const body = await json<{
      schema_version: string;
      error: { code: string; retryable: boolean; details: object };
    }>(path, 404);
    expect(body).toMatchObject({
      schema_version: "1",
      error: { code: "not_found", retryable: false, details: {} },
    });
  });

  it("answers pages with HTML errors: 400 for a bad filter, 404 for an unknown effect", async () => {
    const bad = await get("/effects?lifecycle=DONE");
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await bad.text()).toContain('data-error-code="query_invalid"');
    const missing = await get(`/effects/${"0".repeat(64)}`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('data-error-code="not_found"');
  });
});
