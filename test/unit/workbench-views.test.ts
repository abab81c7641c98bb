/**
 * Pure parts of the workbench: HTML escaping, the three-track timeline layout (one column per
 * instant, shared across tracks), the 4 MiB JSON ceiling, and the request-log path
 * normalisation that keeps ids and query strings out of the log.
 */
import { describe, expect, it } from "vitest";
import { normalizePath } from "../../src/workbench/request-log.js";
import { jsonResponse, MAX_JSON_BYTES } from "../../src/workbench/responses.js";
import { html } from "../../src/workbench/views/html.js";
import { timelineSvg, type TimelineEvent } from "../../src/workbench/views/timeline-svg.js";

const T1 = "2026-03-01T10:00:00.000001Z";
const T2 = "2026-03-01T10:00:00.000002Z";

function ev(
  track: TimelineEvent["track"],
  at: string,
  state: string,
  order: number,
): TimelineEvent {
  return {
    track,
    kind: track === "lifecycle" ? "transition" : "finding",
    at,
    order,
    state,
    sub: "",
    ref: `r-${order}`,
  };
}

/** x of each marker, by data-ref. */
function markerX(svg: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of svg.matchAll(
    /data-ref="([^"]+)"[\s\S]*?<(?:circle|rect)[^>]*?(?:cx|x)="([\d.]+)"/g,
  ))
    out[m[1] ?? ""] = Number(m[2]);
  return out;
}

describe("workbench views", () => {
  it("escapes every interpolated value, in text and in attributes", () => {
    const evil = `"><script>alert(1)</script>'&`;
    const out = html`<p title="${evil}">${evil}</p>`.text;
    expect(out).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#39;&amp;">&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#39;&amp;</p>',
    );
    expect(html`${[html`<b>x</b>`, "<i>"]}`.text).toBe("<b>x</b>&lt;i&gt;");
  });

  it("puts events of one instant in one column across tracks, and splits a track's simultaneous events", () => {
    const svg = timelineSvg([
      ev("lifecycle", T1, "INTENDED", 1),
      ev("lifecycle", T1, "PERSISTED", 2),
      ev("lifecycle", T2, "SETTLED_COMMITTED", 3),
      ev("classification", T2, "CONFIRMED_UNIQUE", 4),
    ]).text;
    const x = markerX(svg);
    expect(x["r-1"]).toBeLessThan(x["r-2"] ?? 0);
    expect(x["r-2"]).toBeLessThan(x["r-3"] ?? 0);
    expect(x["r-3"]).toBe(x["r-4"]);
    expect(svg).toContain('data-track="lifecycle"');
    expect(svg).toContain("no resolutions");
    expect(svg).not.toContain("UNRECONCILED — no findings");
  });

  it("never writes an inline style or script into the SVG", () => {
    const svg = timelineSvg([
      ev("lifecycle", T1, "INTENDED", 1),
      ev("resolution", T2, "CLOSED", 2),
    ]).text;
    expect(svg).not.toMatch(/style=|<style|<script|on[a-z]+=/i);
  });

  it("refuses a JSON body over 4 MiB with response_too_large", async () => {
    const res = jsonResponse(200, { data: "x".repeat(MAX_JSON_BYTES) });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: { code: "response_too_large" } });
    expect(jsonResponse(200, { data: "x" }).status).toBe(200);
  });

  it.each([
    [`/api/v1/effects/${"a".repeat(64)}`, "/api/v1/effects/:effect_id"],
    [`/api/v1/effects/${"a".repeat(64)}/inspect`, "/api/v1/effects/:effect_id/inspect"],
    [`/effects/${"b".repeat(64)}`, "/effects/:effect_id"],
    ["/api/v1/effects", "/api/v1/effects"],
    ["/api/v1/ORDER-9410", "/api/unknown"],
    ["/assets/app.css", "/assets"],
    ["/effects/ORDER-9410", "/unknown"],
  ])("logs %s as %s", (path, logged) => {
    expect(normalizePath(path)).toBe(logged);
  });
});
