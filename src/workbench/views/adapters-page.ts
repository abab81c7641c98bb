/**
 * workbench/views/adapters-page — destination declarations: each packaged declaration with
 * its tier, declared lags (undeclared = absence goes to a human), query keys, idempotency
 * window, citations and digest; then which (adapter, declaration digest) pairs the ledger's
 * records cite, flagging a digest this package does not ship. Imports: workbench.
 */
import type { DeclarationView } from "../packaged-declarations.js";
import type { LedgerAdapterUse } from "../queries/ledger-adapters.js";
import { shortDigest } from "./format.js";
import { html, join, type SafeHtml } from "./html.js";
import { page } from "./layout.js";

function lag(textValue: string | null, seconds: number | null): SafeHtml {
  if (textValue === null) return html`<span class="warn" data-lag="undeclared">undeclared</span>`;
  return html`<code data-lag-seconds="${seconds ?? ""}">${textValue}</code>
    <small>(${seconds ?? "?"} s)</small>`;
}

function declarationRow(d: DeclarationView): SafeHtml {
  return html`<tr id="${d.adapter_id}" data-adapter="${d.adapter_id}" data-tier="${d.tier}">
    <td data-label="Adapter">
      <code>${d.adapter_id}</code><br /><small>${d.destination} · ${d.api_version}</small>
    </td>
    <td data-label="Tier"><span class="tier t-${d.tier}">${d.tier}</span></td>
    <td data-label="Status lag">
      ${lag(d.lags.status_settlement_lag, d.lags.status_settlement_lag_seconds)}
    </td>
    <td data-label="Listing lag">${lag(d.lags.listing_lag, d.lags.listing_lag_seconds)}</td>
    <td data-label="Idempotency window">
      ${d.idempotency_window ?? html`<span class="none">none</span>`}
    </td>
    <td data-label="Query keys">
      ${
        d.queryable_by.length === 0
          ? html`<span class="none">not queryable</span>`
          : join(
              d.queryable_by.map((k) => html`<code>${k}</code>`),
              " ",
            )
      }${d.list_queryable ? html` <small>+ list</small>` : ""}
    </td>
    <td data-label="Citations">
      <ul class="citations">
        ${join(d.citations.map((c) => html`<li><code>${c}</code></li>`))}
      </ul>
    </td>
    <td data-label="Digest">${shortDigest(d.declaration_digest)}</td>
  </tr>`;
}

function useRow(u: LedgerAdapterUse, known: ReadonlySet<string>): SafeHtml {
  const shipped = known.has(u.declaration_digest);
  return html`<tr data-ledger-adapter="${u.adapter_id}">
    <td data-label="Adapter"><code>${u.adapter_id}</code></td>
    <td data-label="Declaration">${shortDigest(u.declaration_digest)}</td>
    <td data-label="Effects">${u.effects}</td>
    <td data-label="Shipped">
      ${shipped ? html`<span class="ok">packaged</span>` : html`<span class="warn">not shipped by this package</span>`}
    </td>
  </tr>`;
}

/** The page. */
export function adaptersPage(input: {
  readonly declarations: readonly DeclarationView[];
  readonly ledger: readonly LedgerAdapterUse[];
  readonly asOf: string;
  readonly isDemo: boolean;
}): SafeHtml {
  const known = new Set(input.declarations.map((d) => d.declaration_digest));
  const ledger =
    input.ledger.length === 0
      ? html`<p class="empty">No records yet.</p>`
      : html`<div class="table-wrap">
          <table class="list" data-table="ledger-adapters">
            <thead>
              <tr>
                <th>Adapter</th>
                <th>Declaration</th>
                <th>Effects</th>
                <th>Shipped</th>
              </tr>
            </thead>
            <tbody>
              ${join(input.ledger.map((u) => useRow(u, known)))}
            </tbody>
          </table>
        </div>`;
  return page(
    { title: "Destinations", section: "adapters", isDemo: input.isDemo, asOf: input.asOf },
    html`<h1>Destination declarations</h1>
      <p class="hint">
        Tier C1: native idempotency key. C2: queryable with stable references. C3: opaque (nothing
        can be read back; unknown outcomes go to a human). Without a declared lag, absence is never
        concluded automatically.
      </p>
      <div class="table-wrap">
        <table class="list" data-table="declarations">
          <thead>
            <tr>
              <th>Adapter</th>
              <th>Tier</th>
              <th>Status lag</th>
              <th>Listing lag</th>
              <th>Idempotency window</th>
              <th>Query keys</th>
              <th>Citations</th>
              <th>Digest</th>
            </tr>
          </thead>
          <tbody>
            ${join(input.declarations.map(declarationRow))}
          </tbody>
        </table>
      </div>
      <h2>Declarations cited by the ledger</h2>
      ${ledger}`,
  );
}
