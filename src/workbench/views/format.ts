/**
 * workbench/views/format — small renderers every page shares: state badges carrying their
 * dimension and value as data attributes (what the browser tests assert on), shortened ids
 * with the full value in a title, timestamps, compact JSON, and in-page links to the rows an
 * evidence object cites. Imports: workbench.
 */
import { html, join, type SafeHtml } from "./html.js";

/** Which of the three dimensions a badge shows. */
export type Dimension = "lifecycle" | "classification" | "resolution";

/** A state badge: `<span class="badge s-AMBIGUOUS" data-dimension=… data-state=…>`. */
export function badge(dimension: Dimension, state: string | null): SafeHtml {
  if (state === null)
    return html`<span class="none" data-dimension="${dimension}" data-state="none">—</span>`;
  return html`<span class="badge s-${state}" data-dimension="${dimension}" data-state="${state}"
    >${state}</span
  >`;
}

/** A long id shortened for tables; the full value stays in the title and in copy-paste. */
export function shortId(id: string, keep = 12): SafeHtml {
  if (id.length <= keep + 4) return html`<code>${id}</code>`;
  return html`<code title="${id}">${id.slice(0, keep)}…</code>`;
}

/** A `sha256:` digest shortened the same way. */
export function shortDigest(digest: string | null | undefined): SafeHtml {
  if (digest === null || digest === undefined) return html`<span class="none">—</span>`;
  return digest.startsWith("sha256:")
    ? html`<code title="${digest}">sha256:${digest.slice(7, 19)}…</code>`
    : shortId(digest);
}

/** An ISO timestamp as `YYYY-MM-DD HH:MM:SS.mmm`, full value in `datetime`. */
export function time(iso: string | null | undefined): SafeHtml {
  if (iso === null || iso === undefined) return html`<span class="none">—</span>`;
  const shown = iso.replace("T", " ").replace(/(\.\d{3})\d*Z$/, "$1Z");
  return html`<time datetime="${iso}">${shown}</time>`;
}

/** Compact JSON for evidence cells. */
export function jsonCode(value: unknown): SafeHtml {
  if (value === null || value === undefined) return html`<span class="none">—</span>`;
  return html`<code class="json">${JSON.stringify(value)}</code>`;
}

/** Optional text. */
export function text(value: unknown): SafeHtml {
  if (value === null || value === undefined || value === "")
    return html`<span class="none">—</span>`;
  return html`${String(value)}`;
}

const CITATION_KEYS: Readonly<Record<string, string>> = {
  probe_id: "probe",
  probe_ids: "probe",
  receipt_id: "receipt",
  receipt_ids: "receipt",
  decision_id: "decision",
  gate_decision_id: "decision",
  attempt_id: "attempt",
  finding_id: "finding",
  finding_ids: "finding",
  absent_probe_id: "probe",
};

/** Links to the rows an evidence object cites by id (`probe_ids: [3]` ⇒ `#probe-3`). */
export function citedLinks(evidence: unknown): SafeHtml {
  if (typeof evidence !== "object" || evidence === null || Array.isArray(evidence)) return html``;
  const links: SafeHtml[] = [];
  for (const [key, value] of Object.entries(evidence as Record<string, unknown>)) {
    const kind = CITATION_KEYS[key];
    if (kind === undefined) continue;
    for (const id of Array.isArray(value) ? value : [value]) {
      if (typeof id === "number" && Number.isSafeInteger(id)) {
        links.push(
          html`<a class="cite" href="#${kind}-${id}" data-cites="${kind}-${id}">${kind} #${id}</a>`,
        );
      }
    }
  }
  return join(links, " ");
}
