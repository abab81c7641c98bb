/**
 * workbench/views/timeline-events — turns the inspect document into timeline markers: one
 * per lifecycle transition, per status probe and per finding, an OPEN marker where each
 * finding's resolution chain starts, and one per resolution step. Imports: workbench.
 */
import { num, rowsOf, str, type Row } from "./rows.js";
import type { TimelineEvent } from "./timeline-svg.js";

/** The parts of the inspect document the timeline reads. */
export interface TimelineSource {
  readonly timeline: readonly unknown[];
  readonly probes: readonly unknown[];
  readonly findings: readonly unknown[];
  readonly resolutions: readonly unknown[];
}

const at = (r: Row, ...keys: string[]): string =>
  keys.map((k) => str(r, k)).find((v) => v !== null) ?? "";

/** Every marker, unsorted (the SVG places them). */
export function timelineEvents(doc: TimelineSource): TimelineEvent[] {
  const events: TimelineEvent[] = [];
  for (const t of rowsOf(doc.timeline)) {
    const seq = num(t, "transition_seq") ?? 0;
    const step = num(t, "step") ?? 0;
    events.push({
      track: "lifecycle",
      kind: "transition",
      at: at(t, "created_at"),
      order: seq,
      state: str(t, "to_state") ?? "?",
      from: str(t, "from_state"),
      sub: `${str(t, "cause") ?? ""}${step > 0 ? ` · step ${step}` : ""}`,
      ref: `transition-${seq}`,
      step,
    });
  }
  for (const p of rowsOf(doc.probes)) {
    const id = num(p, "probe_id") ?? 0;
    const found = num(p, "n_found");
    events.push({
      track: "classification",
      kind: "probe",
      at: at(p, "recorded_at", "queried_at"),
      order: id,
      state: str(p, "result") ?? "?",
      sub: `probe #${id}${found === null ? "" : ` · n=${found}`}`,
      ref: `probe-${id}`,
    });
  }
  for (const f of rowsOf(doc.findings)) {
    const id = num(f, "finding_id") ?? 0;
    events.push({
      track: "classification",
      kind: "finding",
      at: at(f, "created_at"),
      // After the probes it rests on when they share a timestamp.
      order: 1e15 + id,
      state: str(f, "classification") ?? "?",
      sub: `finding #${id} · ${str(f, "created_by") ?? ""}`,
      ref: `finding-${id}`,
    });
    events.push({
      track: "resolution",
      kind: "opened",
      at: at(f, "created_at"),
      order: -1e15 + id,
      state: "OPEN",
      from: null,
      sub: `finding #${id}`,
      ref: `finding-${id}`,
    });
  }
  for (const r of rowsOf(doc.resolutions)) {
    const seq = num(r, "resolution_seq") ?? 0;
    events.push({
      track: "resolution",
      kind: "resolution",
      at: at(r, "created_at"),
      order: seq,
      state: str(r, "to_status") ?? "?",
      from: str(r, "from_status"),
      sub: `#${num(r, "finding_id") ?? "?"} · ${str(r, "actor") ?? ""}`,
      ref: `resolution-${seq}`,
    });
  }
  return events;
}
