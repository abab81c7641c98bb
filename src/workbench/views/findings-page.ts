/**
 * workbench/views/findings-page — the findings queue: what the destination said about our
 * records (and orphans it holds that we have no record of), with each finding's current
 * resolution status; filterable, newest first. Imports: core, workbench.
 */
import { CLASSIFICATIONS, RESOLUTION_STATUSES } from "../../core/state-tables.js";
import type { FindingView } from "../queries/finding-view.js";
import { filterForm, nextPageLink, type FilterField } from "./filter-form.js";
import { badge, shortDigest, shortId, text, time } from "./format.js";
import { html, join, type SafeHtml } from "./html.js";
import { page } from "./layout.js";

const FIELDS: readonly FilterField[] = [
  { kind: "select", name: "classification", label: "Classification", options: CLASSIFICATIONS },
  { kind: "select", name: "resolution_status", label: "Resolution", options: RESOLUTION_STATUSES },
  { kind: "text", name: "adapter", label: "Adapter" },
  { kind: "text", name: "destination_ref", label: "Destination ref" },
  { kind: "text", name: "subject_effect_id", label: "Effect id" },
  { kind: "text", name: "from", label: "Created from", placeholder: "2026-01-01T00:00:00Z" },
  { kind: "text", name: "to", label: "Created before", placeholder: "2026-12-31T00:00:00Z" },
];

function subject(f: FindingView): SafeHtml {
  if ("effect_id" in f.subject)
    return html`<a href="/effects/${f.subject.effect_id}" data-link="effect"
      >${shortId(f.subject.effect_id)}</a
    >`;
  return html`<span class="orphan">orphan at ${f.subject.adapter_id}</span>`;
}

function row(f: FindingView): SafeHtml {
  return html`<tr
    data-finding-id="${f.finding_id}"
    data-classification="${f.classification}"
    data-resolution="${f.resolution.status}"
  >
    <td data-label="Finding"><code>${f.finding_id}</code></td>
    <td data-label="Classification">${badge("classification", f.classification)}</td>
    <td data-label="Resolution">${badge("resolution", f.resolution.status)}</td>
    <td data-label="Subject">${subject(f)}</td>
    <td data-label="Adapter">${f.adapter_id}</td>
    <td data-label="Destination ref">${text(f.destination_ref)}</td>
    <td data-label="Excess">${text(f.excess_effect_count)}</td>
    <td data-label="Evidence">${shortDigest(f.evidence.digest)}</td>
    <td data-label="Created">${time(f.created_at)}<br /><small>${f.created_by}</small></td>
  </tr>`;
}

/** The page. */
export function findingsPage(input: {
  readonly items: readonly FindingView[];
  readonly nextCursor: string | null;
  readonly current: URLSearchParams;
  readonly asOf: string;
  readonly isDemo: boolean;
}): SafeHtml {
  const body =
    input.items.length === 0
      ? html`<p class="empty" data-empty="findings">No findings match these filters.</p>`
      : html`<div class="table-wrap">
          <table class="list" data-table="findings">
            <thead>
              <tr>
                <th>Finding</th>
                <th>Classification</th>
                <th>Resolution</th>
                <th>Subject</th>
                <th>Adapter</th>
                <th>Destination ref</th>
                <th>Excess</th>
                <th>Evidence</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              ${join(input.items.map(row))}
            </tbody>
          </table>
        </div>`;
  return page(
    { title: "Findings", section: "findings", isDemo: input.isDemo, asOf: input.asOf },
    html`<h1>Findings</h1>
      ${filterForm("/findings", FIELDS, input.current)} ${body}
      ${nextPageLink("/findings", input.current, input.nextCursor)}`,
  );
}
