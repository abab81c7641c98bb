/**
 * workbench/views/effects-page — the effects list: filters, then one row per effect with its
 * three dimensions side by side (lifecycle, latest classification, its resolution) and its
 * stable-id keys with digested values. Rows carry data attributes the browser tests use.
 * Imports: core, workbench.
 */
import { EFFECT_CLASSES, LIFECYCLE_STATES } from "../../core/state-tables.js";
import type { EffectItem } from "../queries/effect-items.js";
import { CLASSIFICATION_FILTER_VALUES } from "../query-params.js";
import { filterForm, nextPageLink, type FilterField } from "./filter-form.js";
import { badge, shortDigest, shortId, time } from "./format.js";
import { html, join, type SafeHtml } from "./html.js";
import { page } from "./layout.js";

const FIELDS: readonly FilterField[] = [
  { kind: "select", name: "lifecycle", label: "Lifecycle", options: LIFECYCLE_STATES },
  {
    kind: "select",
    name: "classification",
    label: "Classification",
    options: CLASSIFICATION_FILTER_VALUES,
  },
  { kind: "select", name: "effect_class", label: "Effect class", options: EFFECT_CLASSES },
  { kind: "text", name: "scope", label: "Scope" },
  { kind: "text", name: "effect_type", label: "Effect type" },
  { kind: "text", name: "from", label: "Created from", placeholder: "2026-01-01T00:00:00Z" },
  { kind: "text", name: "to", label: "Created before", placeholder: "2026-12-31T00:00:00Z" },
];

/** Stable-id keys with digested values. */
export function stableIdList(ids: Readonly<Record<string, string>>): SafeHtml {
  return html`<dl class="ids">
    ${join(
      Object.entries(ids).map(
        ([k, v]) =>
          html`<dt>${k}</dt>
            <dd>${shortDigest(v)}</dd>`,
      ),
    )}
  </dl>`;
}

function row(item: EffectItem): SafeHtml {
  const r = item.record;
  const href = `/effects/${r.effect_id}`;
  return html`<tr
    data-effect-id="${r.effect_id}"
    data-lifecycle="${r.lifecycle}"
    data-classification="${item.classification}"
  >
    <td data-label="Effect"><a href="${href}" data-link="effect">${shortId(r.effect_id)}</a></td>
    <td data-label="Type">${r.effect_type}<br /><small>${r.effect_class}</small></td>
    <td data-label="Scope">${r.scope}</td>
    <td data-label="Lifecycle">${badge("lifecycle", r.lifecycle)}</td>
    <td data-label="Classification">${badge("classification", item.classification)}</td>
    <td data-label="Resolution">${badge("resolution", item.finding?.resolution.status ?? null)}</td>
    <td data-label="Stable ids">${stableIdList(r.stable_ids)}</td>
    <td data-label="Created">${time(r.created_at)}</td>
  </tr>`;
}

/** The page. `current` holds the query as given (to refill the form). */
export function effectsPage(input: {
  readonly items: readonly EffectItem[];
  readonly nextCursor: string | null;
  readonly current: URLSearchParams;
  readonly asOf: string;
  readonly isDemo: boolean;
}): SafeHtml {
  const body =
    input.items.length === 0
      ? html`<p class="empty" data-empty="effects">No effects match these filters.</p>`
      : html`<div class="table-wrap">
          <table class="list" data-table="effects">
            <thead>
              <tr>
                <th>Effect</th>
                <th>Type</th>
                <th>Scope</th>
                <th>Lifecycle</th>
                <th>Classification</th>
                <th>Resolution</th>
                <th>Stable ids</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              ${join(input.items.map(row))}
            </tbody>
          </table>
        </div>`;
  return page(
    { title: "Effects", section: "effects", isDemo: input.isDemo, asOf: input.asOf },
    html`<h1>Effects</h1>
      ${filterForm("/effects", FIELDS, input.current)} ${body}
      ${nextPageLink("/effects", input.current, input.nextCursor)}`,
  );
}
