/**
 * workbench/views/effect-page — one effect: its record (stable-id keys with digested values),
 * the three dimensions side by side, the three-track timeline, then every piece of evidence.
 * Rendered from the digested inspect document, the same data `/api/v1/effects/:id/inspect`
 * returns. Imports: ledger (types), workbench.
 */
import type { EffectInspection } from "../../ledger/inspect-effect.js";
import { effectSections, type ProbeCitation } from "./effect-sections.js";
import { stableIdList } from "./effects-page.js";
import { badge, shortDigest, text, time } from "./format.js";
import { html, type SafeHtml } from "./html.js";
import { page } from "./layout.js";
import { str } from "./rows.js";
import { timelineEvents } from "./timeline-events.js";
import { timelineSvg } from "./timeline-svg.js";

/** The page. */
export function effectPage(input: {
  readonly doc: EffectInspection;
  readonly probeCitations: ReadonlyMap<number, ProbeCitation>;
  readonly asOf: string;
  readonly isDemo: boolean;
}): SafeHtml {
  const { doc } = input;
  const r = doc.record;
  const effectId = str(r, "effect_id") ?? "";
  const ids = (
    typeof r["stable_ids"] === "object" && r["stable_ids"] !== null ? r["stable_ids"] : {}
  ) as Record<string, string>;
  const integrity = doc.integrity.matches
    ? html`<span class="ok" data-integrity="matches">recomputed id matches</span>`
    : html`<span class="warn" data-integrity="mismatch"
        >recomputed id does NOT match (${doc.integrity.recomputed_intent_id})</span
      >`;
  return page(
    {
      title: `Effect ${effectId.slice(0, 12)}`,
      section: "effects",
      isDemo: input.isDemo,
      asOf: input.asOf,
    },
    html`<article class="effect" data-effect-id="${effectId}">
      <h1>Effect <code class="effect-id">${effectId}</code></h1>
      <div class="dimensions" data-dimensions>
        <div>
          <span class="dim-name">Lifecycle</span>${badge("lifecycle", doc.dimensions.lifecycle)}
        </div>
        <div>
          <span class="dim-name">Classification</span
          >${badge("classification", doc.dimensions.classification)}
        </div>
        <div>
          <span class="dim-name">Resolution</span>${badge("resolution", doc.dimensions.resolution)}
        </div>
      </div>
      <dl class="record">
        <dt>Effect type</dt>
        <dd>${text(r["effect_type"])}</dd>
        <dt>Class</dt>
        <dd>${text(r["effect_class"])}</dd>
        <dt>Scope</dt>
        <dd>${text(r["scope"])}</dd>
        <dt>Adapter</dt>
        <dd>
          <a href="/adapters#${str(r, "adapter_id") ?? ""}">${text(r["adapter_id"])}</a>
          ${shortDigest(str(r, "declaration_digest"))}
        </dd>
        <dt>Stable ids</dt>
        <dd>${stableIdList(ids)}</dd>
        <dt>Operation</dt>
        <dd><code>${text(r["operation_id"])}</code> (step ${text(r["step"])})</dd>
        <dt>Parameters</dt>
        <dd>${shortDigest(str(r, "parameters_digest"))}</dd>
        <dt>Branch</dt>
        <dd>${text(r["branch_ref"])}</dd>
        <dt>Event time</dt>
        <dd>${time(str(r, "event_time"))}</dd>
        <dt>Created</dt>
        <dd>${time(str(r, "created_at"))}</dd>
        <dt>Integrity</dt>
        <dd>${integrity}</dd>
      </dl>
      <section class="timeline-section" data-section="timeline">
        <h2>Timeline</h2>
        <p class="hint">
          Three separate records on one time axis: what we did, what the destination says, what was
          decided. Columns are timestamps in order (not to scale); events in one column happened at
          the same instant.
        </p>
        <div class="timeline-scroll">${timelineSvg(timelineEvents(doc))}</div>
      </section>
      ${effectSections(doc, input.probeCitations)}
      <p class="raw-links"><a href="/api/v1/effects/${effectId}/inspect">inspect JSON</a></p>
    </article>`,
  );
}
