/**
 * workbench/views/timeline-svg — the effect's three dimensions as three separate tracks on
 * one time axis, drawn on the server as inline SVG (no script, no inline style: colours come
 * from classes in app.css, which CSP allows). Top track: lifecycle transitions (what we did);
 * middle: probes and classification findings (what the destination says); bottom: the
 * resolution chain of each finding (what a human or policy decided).
 *
 * The axis is ordinal in time: every distinct timestamp is one column, in time order, labelled
 * with its time; events that share a timestamp (a transition and the finding written in the
 * same transaction) share the column, so cause and effect line up vertically. Real gaps are
 * not drawn to scale: a millisecond and a day look the same width, which keeps a burst of
 * events legible. Every marker links to its row below and carries data attributes
 * (`data-track`, `data-state`, `data-from`, `data-kind`) for tests and tooling.
 * Imports: workbench.
 */
import { html, join, type SafeHtml } from "./html.js";

/** The three tracks, top to bottom. */
export const TRACKS = ["lifecycle", "classification", "resolution"] as const;
export type Track = (typeof TRACKS)[number];

/** One marker. */
export interface TimelineEvent {
  readonly track: Track;
  readonly kind: "transition" | "probe" | "finding" | "opened" | "resolution";
  /** ISO timestamp, UTC, fixed width (lexical order = time order). */
  readonly at: string;
  /** Tie-break inside a track and timestamp (a sequence number). */
  readonly order: number;
  readonly state: string;
  readonly from?: string | null;
  /** Second label line (cause, actor, n found). */
  readonly sub: string;
  /** Anchor of the row this marker stands for. */
  readonly ref: string;
  readonly step?: number;
}

const LEFT = 128;
const SLOT_W = 136;
const TOP = 34;
const BAND_H = 74;
const AXIS_H = 40;
const TRACK_LABELS: Readonly<Record<Track, readonly [string, string]>> = {
  lifecycle: ["Lifecycle", "what we did"],
  classification: ["Classification", "what the destination says"],
  resolution: ["Resolution", "what was decided"],
};
const EMPTY_TEXT: Readonly<Record<Track, string>> = {
  lifecycle: "no transitions",
  classification: "UNRECONCILED — no findings",
  resolution: "no resolutions",
};

const trackY = (t: Track): number => TOP + BAND_H * TRACKS.indexOf(t) + BAND_H / 2 - 8;

interface Placed extends TimelineEvent {
  readonly x: number;
}

interface Column {
  readonly at: string;
  readonly x0: number;
  readonly x1: number;
}

function place(events: readonly TimelineEvent[]): {
  placed: Placed[];
  columns: Column[];
  width: number;
} {
  const sorted = [...events].sort((a, b) =>
    a.at < b.at
      ? -1
      : a.at > b.at
        ? 1
        : TRACKS.indexOf(a.track) - TRACKS.indexOf(b.track) || a.order - b.order,
  );
  const placed: Placed[] = [];
  const columns: Column[] = [];
  let slot = 0;
  let i = 0;
  while (i < sorted.length) {
    const at = sorted[i]?.at ?? "";
    const group: TimelineEvent[] = [];
    while (i < sorted.length && sorted[i]?.at === at) group.push(sorted[i++] as TimelineEvent);
    const perTrack = TRACKS.map((t) => group.filter((e) => e.track === t));
    const span = Math.max(1, ...perTrack.map((g) => g.length));
    for (const g of perTrack) {
      // A track with fewer events than the column is wide ends them at its right edge: what
      // one transaction wrote comes last in every track (a probe recorded with its settle sits
      // before the finding), so the settle's transition and its finding share one x.
      const offset = span - g.length;
      g.forEach((e, k) => placed.push({ ...e, x: LEFT + (slot + offset + k + 0.5) * SLOT_W }));
    }
    columns.push({ at, x0: LEFT + slot * SLOT_W, x1: LEFT + (slot + span) * SLOT_W });
    slot += span;
  }
  return { placed, columns, width: LEFT + Math.max(slot, 1) * SLOT_W + 16 };
}

function marker(e: Placed): SafeHtml {
  const y = trackY(e.track);
  const shape =
    e.kind === "probe"
      ? html`<rect
          class="mark"
          x="${e.x - 6}"
          y="${y - 6}"
          width="12"
          height="12"
          transform="rotate(45 ${e.x} ${y})"
        />`
      : e.kind === "opened"
        ? html`<circle class="mark hollow" cx="${e.x}" cy="${y}" r="6" />`
        : html`<circle class="mark" cx="${e.x}" cy="${y}" r="8" />`;
  const from = e.from === undefined ? "" : (e.from ?? "∅");
  const title = `${e.kind} ${e.from === undefined ? "" : `${from} → `}${e.state} · ${e.sub} · ${e.at}`;
  return html`<a href="#${e.ref}" class="ev-link"
    ><g
      class="ev k-${e.kind} s-${e.state}"
      data-track="${e.track}"
      data-kind="${e.kind}"
      data-state="${e.state}"
      ${e.from === undefined ? "" : html` data-from="${from}"`}
      data-at="${e.at}"
      data-ref="${e.ref}"
      ${e.step === undefined ? "" : html` data-step="${e.step}"`}
      ><title>${title}</title>${shape}<text class="ev-label" x="${e.x}" y="${y + 22}"
        >${e.state}</text
      ><text class="ev-sub" x="${e.x}" y="${y + 35}">${e.sub}</text></g
    ></a
  >`;
}

/** Lines between consecutive transitions of one execution, coloured by the state held. */
function lifecycleSegments(placed: readonly Placed[], width: number): SafeHtml {
  const y = trackY("lifecycle");
  const byStep = new Map<number, Placed[]>();
  for (const e of placed)
    if (e.track === "lifecycle") byStep.set(e.step ?? 0, [...(byStep.get(e.step ?? 0) ?? []), e]);
  const lastStep = Math.max(-1, ...byStep.keys());
  const segs: SafeHtml[] = [];
  for (const [step, list] of byStep) {
    list.forEach((e, k) => {
      const next = list[k + 1];
      const x2 = next?.x ?? (step === lastStep ? width - 8 : e.x);
      if (x2 > e.x)
        segs.push(
          html`<line class="seg s-${e.state}" x1="${e.x}" y1="${y}" x2="${x2}" y2="${y}" />`,
        );
    });
  }
  return join(segs);
}

function axis(columns: readonly Column[], height: number): SafeHtml {
  const dayOf = (at: string): string => at.slice(0, 10);
  return join(
    columns.map((c, k) => {
      const mid = (c.x0 + c.x1) / 2;
      const showDay = k === 0 || dayOf(columns[k - 1]?.at ?? "") !== dayOf(c.at);
      return html`<line
          class="grid"
          x1="${c.x0}"
          y1="${TOP - 6}"
          x2="${c.x0}"
          y2="${height - AXIS_H + 6}"
        /><text class="tick" x="${mid}" y="${height - AXIS_H + 22}">${c.at.slice(11, 23)}</text>${
          showDay
            ? html`<text class="tick day" x="${mid}" y="${height - 6}">${dayOf(c.at)} UTC</text>`
            : ""
        }`;
    }),
  );
}

/** The SVG. */
export function timelineSvg(events: readonly TimelineEvent[]): SafeHtml {
  const { placed, columns, width } = place(events);
  const height = TOP + BAND_H * TRACKS.length + AXIS_H;
  const bands = TRACKS.map((t) => {
    const y = trackY(t);
    const [label, hint] = TRACK_LABELS[t];
    const empty = placed.some((e) => e.track === t)
      ? ""
      : html`<text class="empty-track" x="${LEFT + 12}" y="${y + 4}">${EMPTY_TEXT[t]}</text>`;
    return html`<g class="track" data-track-band="${t}"
      ><text class="track-label" x="8" y="${y - 2}">${label}</text
      ><text class="track-hint" x="8" y="${y + 12}">${hint}</text
      ><line class="track-line" x1="${LEFT}" y1="${y}" x2="${width - 8}" y2="${y}" />${empty}</g
    >`;
  });
  return html`<svg
    class="timeline"
    data-timeline="three-track"
    xmlns="http://www.w3.org/2000/svg"
    width="${width}"
    height="${height}"
    viewBox="0 0 ${width} ${height}"
    role="img"
    aria-labelledby="timeline-title"
  >
    <title id="timeline-title">
      Lifecycle, classification and resolution of this effect on one time axis
    </title>
    ${axis(columns, height)} ${join(bands)} ${lifecycleSegments(placed, width)}
    ${join(placed.map(marker))}
  </svg>`;
}
