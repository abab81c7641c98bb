/**
 * workbench/views/effect-sections — the evidence tables under an effect's timeline:
 * executions, transitions, gate decisions, attempts, receipts, late responses, probes (with
 * the declaration and citations each relied on), findings, resolutions, parameter variants,
 * authorities and escalations. Every row has an anchor (`#probe-3`) that the timeline and the
 * "cites" links point at. Values come from the already digested inspect document.
 * Imports: workbench.
 */
import { badge, citedLinks, jsonCode, shortDigest, shortId, text, time } from "./format.js";
import { html, join, type SafeHtml } from "./html.js";
import { num, rowsOf, str, type Row } from "./rows.js";

/** What a probe cited: the adapter and declaration it was read under. */
export interface ProbeCitation {
  readonly adapterId: string;
  readonly declarationDigest: string;
  /** The packaged declaration's citations, when this package still ships that declaration. */
  readonly citations: readonly string[] | null;
}

interface Column {
  readonly head: string;
  readonly cell: (r: Row) => SafeHtml;
}

function table(
  name: string,
  title: string,
  anchor: (r: Row) => string | null,
  columns: readonly Column[],
  rows: readonly Row[],
): SafeHtml {
  const body =
    rows.length === 0
      ? html`<p class="empty" data-empty="${name}">None.</p>`
      : html`<div class="table-wrap">
          <table class="list" data-table="${name}">
            <thead>
              <tr>
                ${join(columns.map((c) => html`<th>${c.head}</th>`))}
              </tr>
            </thead>
            <tbody>
              ${join(
                rows.map((r) => {
                  const id = anchor(r);
                  return html`<tr${id === null ? "" : html` id="${id}"`}>${join(columns.map((c) => html`<td data-label="${c.head}">${c.cell(r)}</td>`))}</tr>`;
                }),
              )}
            </tbody>
          </table>
        </div>`;
  return html`<section class="evidence" data-section="${name}">
    <h2>${title} <small>(${rows.length})</small></h2>
    ${body}
  </section>`;
}

const idCell =
  (kind: string, key: string) =>
  (r: Row): SafeHtml =>
    html`<a href="#${kind}-${num(r, key) ?? ""}">#${num(r, key) ?? "?"}</a>`;
const textCell =
  (key: string) =>
  (r: Row): SafeHtml =>
    text(r[key]);
const timeCell =
  (key: string) =>
  (r: Row): SafeHtml =>
    time(str(r, key));
const jsonCell =
  (key: string) =>
  (r: Row): SafeHtml =>
    jsonCode(r[key]);
const digestCell =
  (key: string) =>
  (r: Row): SafeHtml =>
    shortDigest(str(r, key));
const anchorOf =
  (kind: string, key: string) =>
  (r: Row): string | null =>
    num(r, key) === null ? null : `${kind}-${num(r, key) ?? ""}`;
const transitionCell =
  (fromKey: string, toKey: string, dimension: "lifecycle" | "resolution") =>
  (r: Row): SafeHtml =>
    html`${str(r, fromKey) === null ? html`<span class="none">∅</span>` : badge(dimension, str(r, fromKey))}
    → ${badge(dimension, str(r, toKey))}`;
const linkCell =
  (kind: string, key: string) =>
  (r: Row): SafeHtml =>
    num(r, key) === null
      ? html`<span class="none">—</span>`
      : html`<a href="#${kind}-${num(r, key) ?? ""}">${kind} #${num(r, key) ?? ""}</a>`;

/** The inspect document's sections this module renders. */
export interface SectionSource {
  readonly executions: readonly unknown[];
  readonly timeline: readonly unknown[];
  readonly gate_decisions: readonly unknown[];
  readonly attempts: readonly unknown[];
  readonly receipts: readonly unknown[];
  readonly late_responses: readonly unknown[];
  readonly probes: readonly unknown[];
  readonly findings: readonly unknown[];
  readonly resolutions: readonly unknown[];
  readonly parameter_variants: readonly unknown[];
  readonly authorities: readonly unknown[];
  readonly escalations: readonly unknown[];
}

function probeCitationCell(citations: ReadonlyMap<number, ProbeCitation>) {
  return (r: Row): SafeHtml => {
    const c = citations.get(num(r, "probe_id") ?? -1);
    if (c === undefined) return html`<span class="none">—</span>`;
    const cited =
      c.citations === null
        ? html`<span class="warn" data-declaration="unknown"
            >declaration not shipped by this package</span
          >`
        : html`<ul class="citations">
            ${join(c.citations.map((u) => html`<li><code>${u}</code></li>`))}
          </ul>`;
    return html`<a href="/adapters#${c.adapterId}">${c.adapterId}</a>
      ${shortDigest(c.declarationDigest)}${cited}`;
  };
}

/** All evidence sections, in reading order. */
export function effectSections(
  doc: SectionSource,
  probeCitations: ReadonlyMap<number, ProbeCitation>,
): SafeHtml {
  return join([
    table(
      "executions",
      "Executions",
      anchorOf("execution", "execution_id"),
      [
        { head: "Execution", cell: (r) => html`#${num(r, "execution_id") ?? "?"}` },
        { head: "Step", cell: textCell("step") },
        { head: "Operation id", cell: (r) => shortId(str(r, "operation_id") ?? "", 16) },
        { head: "Opened by", cell: textCell("opened_by") },
        { head: "Frontier", cell: (r) => badge("lifecycle", str(r, "frontier")) },
        { head: "Opened", cell: timeCell("created_at") },
      ],
      rowsOf(doc.executions),
    ),
    table(
      "transitions",
      "Lifecycle transitions",
      anchorOf("transition", "transition_seq"),
      [
        { head: "Seq", cell: (r) => html`#${num(r, "transition_seq") ?? "?"}` },
        { head: "Step", cell: textCell("step") },
        { head: "Transition", cell: transitionCell("from_state", "to_state", "lifecycle") },
        { head: "Cause", cell: textCell("cause") },
        { head: "Actor", cell: textCell("actor") },
        { head: "Cites", cell: (r) => citedLinks(r["evidence"]) },
        { head: "Evidence", cell: jsonCell("evidence") },
        { head: "At", cell: timeCell("created_at") },
      ],
      rowsOf(doc.timeline),
    ),
    table(
      "gate-decisions",
      "Gate decisions",
      anchorOf("decision", "decision_id"),
      [
        { head: "Decision", cell: (r) => html`#${num(r, "decision_id") ?? "?"}` },
        { head: "Variant", cell: textCell("variant") },
        {
          head: "Outcome",
          cell: (r) =>
            html`<span class="outcome o-${str(r, "outcome") ?? ""}"
              >${str(r, "outcome") ?? "?"}</span
            >`,
        },
        { head: "Failed check", cell: textCell("deny_check") },
        { head: "Checks", cell: jsonCell("checks") },
        { head: "Evidence", cell: jsonCell("evidence") },
        { head: "At", cell: timeCell("created_at") },
      ],
      rowsOf(doc.gate_decisions),
    ),
    table(
      "attempts",
      "Attempts",
      anchorOf("attempt", "attempt_id"),
      [
        { head: "Attempt", cell: (r) => html`#${num(r, "attempt_id") ?? "?"}` },
        { head: "No.", cell: textCell("attempt_no") },
        { head: "Kind", cell: textCell("kind") },
        { head: "Idempotency key", cell: (r) => shortId(str(r, "idempotency_key") ?? "", 16) },
        { head: "Request", cell: digestCell("request_digest") },
        { head: "Gate decision", cell: linkCell("decision", "gate_decision_id") },
        { head: "Worker", cell: textCell("owner_worker_id") },
        { head: "Claimed", cell: timeCell("claimed_at") },
      ],
      rowsOf(doc.attempts),
    ),
    table(
      "receipts",
      "Receipts",
      anchorOf("receipt", "receipt_id"),
      [
        { head: "Receipt", cell: (r) => html`#${num(r, "receipt_id") ?? "?"}` },
        { head: "Attempt", cell: idCell("attempt", "attempt_id") },
        {
          head: "Outcome",
          cell: (r) =>
            html`<span class="outcome o-${str(r, "transport_outcome") ?? ""}"
              >${str(r, "transport_outcome") ?? "?"}</span
            >`,
        },
        { head: "Failure", cell: textCell("failure_kind") },
        { head: "Destination ref", cell: textCell("destination_ref") },
        { head: "Response", cell: digestCell("response_digest") },
        { head: "Recorded by", cell: textCell("recorded_by") },
        { head: "Evidence", cell: jsonCell("evidence") },
        { head: "At", cell: timeCell("recorded_at") },
      ],
      rowsOf(doc.receipts),
    ),
    table(
      "late-responses",
      "Late responses",
      anchorOf("late", "late_id"),
      [
        { head: "Late", cell: (r) => html`#${num(r, "late_id") ?? "?"}` },
        { head: "Attempt", cell: idCell("attempt", "attempt_id") },
        { head: "Outcome", cell: textCell("transport_outcome") },
        { head: "Contradicts settle", cell: textCell("contradicts_settle") },
        { head: "Destination ref", cell: textCell("destination_ref") },
        { head: "Evidence", cell: jsonCell("evidence") },
        { head: "At", cell: timeCell("recorded_at") },
      ],
      rowsOf(doc.late_responses),
    ),
    table(
      "probes",
      "Status probes",
      anchorOf("probe", "probe_id"),
      [
        { head: "Probe", cell: (r) => html`#${num(r, "probe_id") ?? "?"}` },
        { head: "Kind", cell: textCell("probe_kind") },
        {
          head: "Result",
          cell: (r) =>
            html`<span
              class="outcome o-${str(r, "result") ?? ""}"
              data-probe-result="${str(r, "result") ?? ""}"
              >${str(r, "result") ?? "?"}</span
            >`,
        },
        { head: "Found", cell: textCell("n_found") },
        { head: "Query keys", cell: jsonCell("query_keys") },
        { head: "Destination refs", cell: jsonCell("destination_refs") },
        { head: "Declaration and citations", cell: probeCitationCell(probeCitations) },
        { head: "Evidence", cell: jsonCell("evidence") },
        { head: "Queried", cell: timeCell("queried_at") },
      ],
      rowsOf(doc.probes),
    ),
    table(
      "findings",
      "Findings",
      anchorOf("finding", "finding_id"),
      [
        { head: "Finding", cell: (r) => html`#${num(r, "finding_id") ?? "?"}` },
        { head: "Classification", cell: (r) => badge("classification", str(r, "classification")) },
        { head: "Resolution", cell: (r) => badge("resolution", str(r, "resolution_status")) },
        { head: "Created by", cell: textCell("created_by") },
        { head: "Destination ref", cell: textCell("destination_ref") },
        { head: "Excess", cell: textCell("excess_effect_count") },
        { head: "Cites", cell: (r) => citedLinks(r["evidence"]) },
        {
          head: "Evidence",
          cell: (r) => html`${shortDigest(str(r, "evidence_digest"))} ${jsonCode(r["evidence"])}`,
        },
        { head: "At", cell: timeCell("created_at") },
      ],
      rowsOf(doc.findings),
    ),
    table(
      "resolutions",
      "Resolutions",
      anchorOf("resolution", "resolution_seq"),
      [
        { head: "Seq", cell: (r) => html`#${num(r, "resolution_seq") ?? "?"}` },
        { head: "Finding", cell: linkCell("finding", "finding_id") },
        { head: "Step", cell: transitionCell("from_status", "to_status", "resolution") },
        { head: "Actor", cell: textCell("actor") },
        { head: "Evidence", cell: jsonCell("evidence") },
        { head: "At", cell: timeCell("created_at") },
      ],
      rowsOf(doc.resolutions),
    ),
    table(
      "parameter-variants",
      "Parameter variants",
      anchorOf("variant", "variant_id"),
      [
        { head: "Variant", cell: (r) => html`#${num(r, "variant_id") ?? "?"}` },
        {
          head: "Parameters digest",
          cell: (r) => html`<code>${str(r, "parameters_digest") ?? ""}</code>`,
        },
        { head: "Event time", cell: timeCell("event_time") },
        { head: "Recorded", cell: timeCell("recorded_at") },
      ],
      rowsOf(doc.parameter_variants),
    ),
    table(
      "authorities",
      "Authorities",
      anchorOf("authority", "link_id"),
      [
        { head: "Authority", cell: textCell("authority_ref") },
        { head: "Scope", cell: textCell("scope") },
        { head: "Stamped", cell: timeCell("stamped_at") },
        { head: "Expires", cell: timeCell("expires_at") },
        { head: "Linked", cell: timeCell("linked_at") },
      ],
      rowsOf(doc.authorities),
    ),
    table(
      "escalations",
      "Escalations",
      anchorOf("escalation", "escalation_id"),
      [
        { head: "Escalation", cell: (r) => html`#${num(r, "escalation_id") ?? "?"}` },
        { head: "Execution", cell: textCell("execution_id") },
        { head: "Reason", cell: textCell("reason") },
        { head: "Recorded by", cell: textCell("recorded_by") },
        { head: "Evidence", cell: jsonCell("evidence") },
        { head: "At", cell: timeCell("created_at") },
      ],
      rowsOf(doc.escalations),
    ),
  ]);
}
