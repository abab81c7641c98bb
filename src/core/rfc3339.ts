/**
 * core/rfc3339 — a real RFC 3339 `date-time` validator and parser (reference §1.2 [GAP]:
 * the reference never enforced the format). Full grammar: `YYYY-MM-DDTHH:MM:SS[.frac]`
 * then `Z` or `±HH:MM`; `T`/`Z` in either case (RFC 3339 §5.6 note); day checked against
 * the month and leap years; a leap second only where its UTC time is 23:59:60.
 *
 * Only instants in years 0001–9999 UTC are accepted (RFC 3339 allows year 0000 and offsets
 * that push an instant past 9999; Postgres refuses the first with a raw storage error and our
 * normal spelling cannot write the second), so a bad year fails validation naming the field.
 *
 * Parsing yields an epoch-microsecond value so two spellings of one instant compare equal
 * (`2026-03-01T10:00:00+01:00` = `2026-03-01T09:00:00.000Z`); reference §1.4 [GAP] made
 * formatting differences look like new authority or new variants.
 *
 * Imports: core/errors.
 */
import { ContractInvalidError } from "./errors.js";

/** A parsed RFC 3339 instant. */
export interface Rfc3339Instant {
  /** Microseconds since 1970-01-01T00:00:00Z, truncated (sub-microsecond digits dropped). */
  readonly epochMicros: bigint;
  /** Fraction digits beyond the microsecond, trailing zeros removed ("" almost always). */
  readonly subMicroDigits: string;
  /** Offset from UTC in minutes as written (`-00:00` and `Z` are both 0). */
  readonly offsetMinutes: number;
}

const GRAMMAR =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

const MICROS_PER_SECOND = 1_000_000n;
const SECONDS_PER_DAY = 86_400;
/** The accepted range, as reported in `details.limit_value`. */
export const DATE_TIME_RANGE = "0001-01-01T00:00:00Z..9999-12-31T23:59:59.999999Z";

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Days in `month` (1-12) of `year`, proleptic Gregorian. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to the civil date (proleptic Gregorian; works for year 0000). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra =
    yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** Inverse of daysFromCivil. */
function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear =
    dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** Earliest instant we accept: 0001-01-01T00:00:00Z (Postgres has no year 0000). */
export const MIN_INSTANT_MICROS =
  BigInt(daysFromCivil(1, 1, 1) * SECONDS_PER_DAY) * MICROS_PER_SECOND;
/** Latest instant we accept: 9999-12-31T23:59:59.999999Z (our text form has four year digits). */
export const MAX_INSTANT_MICROS =
  BigInt(daysFromCivil(10_000, 1, 1) * SECONDS_PER_DAY) * MICROS_PER_SECOND - 1n;

/**
 * Why `text` is not an accepted date-time: `format` (not RFC 3339 grammar, or no such day or
 * time) or `range` (valid RFC 3339, but its UTC instant lies outside years 0001–9999: Postgres
 * cannot store year 0000, and an instant past 9999 has no four-digit text form), else null.
 */
export function rfc3339Problem(text: unknown): "format" | "range" | null {
  if (typeof text !== "string") return "format";
  const instant = parseGrammar(text);
  if (instant === undefined) return "format";
  if (instant.epochMicros < MIN_INSTANT_MICROS || instant.epochMicros > MAX_INSTANT_MICROS)
    return "range";
  return null;
}

/**
 * Parses an RFC 3339 date-time whose UTC instant lies in years 0001–9999; `undefined` if the
 * text is not one (see {@link rfc3339Problem} for which rule it broke).
 */
export function parseRfc3339(text: string): Rfc3339Instant | undefined {
  const instant = parseGrammar(text);
  if (instant === undefined) return undefined;
  if (instant.epochMicros < MIN_INSTANT_MICROS || instant.epochMicros > MAX_INSTANT_MICROS)
    return undefined;
  return instant;
}

function parseGrammar(text: string): Rfc3339Instant | undefined {
  if (typeof text !== "string") return undefined;
  const m = GRAMMAR.exec(text);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(
    Number,
  ) as [number, number, number, number, number, number];
  const fraction = m[7] ?? "";
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 60) return undefined;

  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const offsetHour = Number(m[10]);
    const offsetMinute = Number(m[11]);
    if (offsetHour > 23 || offsetMinute > 59) return undefined;
    offsetMinutes = (m[9] === "-" ? -1 : 1) * (offsetHour * 60 + offsetMinute);
  }

  const localMinuteOfDay = hour * 60 + minute;
  if (second === 60) {
    // A leap second exists only at the end of a UTC day: 23:59:60 after removing the offset.
    const utcMinuteOfDay = (((localMinuteOfDay - offsetMinutes) % 1440) + 1440) % 1440;
    if (utcMinuteOfDay !== 23 * 60 + 59) return undefined;
  }

  const epochSeconds =
    daysFromCivil(year, month, day) * SECONDS_PER_DAY +
    localMinuteOfDay * 60 +
    second -
    offsetMinutes * 60;
  const micros = BigInt(fraction.slice(0, 6).padEnd(6, "0"));
  return {
    epochMicros: BigInt(epochSeconds) * MICROS_PER_SECOND + micros,
    subMicroDigits: fraction.slice(6).replace(/0+$/, ""),
    offsetMinutes,
  };
}

/** True when `text` is a valid RFC 3339 date-time. */
export function isRfc3339(text: unknown): text is string {
  return typeof text === "string" && parseRfc3339(text) !== undefined;
}

function parseOrThrow(text: string, path: string): Rfc3339Instant {
  const instant = parseRfc3339(text);
  if (instant === undefined) {
    const isRange = rfc3339Problem(text) === "range";
    throw new ContractInvalidError(
      isRange
        ? `date-time outside years 0001-9999 UTC at ${path}`
        : `not an RFC 3339 date-time at ${path}`,
      path,
      isRange ? "date_time_range" : "format",
      typeof text === "string" ? "string" : "other",
      { limit_value: isRange ? DATE_TIME_RANGE : "date-time" },
    );
  }
  return instant;
}

/**
 * True when two RFC 3339 texts name the same instant, however written (offset, `Z` vs
 * `+00:00`, trailing fraction zeros, letter case). Throws ContractInvalidError if either
 * text is not a valid date-time.
 */
export function sameInstant(a: string, b: string): boolean {
  const x = parseOrThrow(a, "$.a");
  const y = parseOrThrow(b, "$.b");
  return x.epochMicros === y.epochMicros && x.subMicroDigits === y.subMicroDigits;
}

/** Epoch microseconds of a valid date-time (throws ContractInvalidError otherwise). */
export function epochMicrosOf(text: string): bigint {
  return parseOrThrow(text, "$").epochMicros;
}

/** One normal spelling per instant: `YYYY-MM-DDTHH:MM:SS.ffffffZ` (microsecond precision). */
export function formatUtcMicros(epochMicros: bigint): string {
  const seconds =
    epochMicros / MICROS_PER_SECOND - (epochMicros % MICROS_PER_SECOND < 0n ? 1n : 0n);
  const micros = epochMicros - seconds * MICROS_PER_SECOND;
  const secs = Number(seconds);
  const days = Math.floor(secs / SECONDS_PER_DAY);
  const secondOfDay = secs - days * SECONDS_PER_DAY;
  const { year, month, day } = civilFromDays(days);
  const two = (n: number): string => String(n).padStart(2, "0");
  const hh = two(Math.floor(secondOfDay / 3600));
  const mm = two(Math.floor((secondOfDay % 3600) / 60));
  const ss = two(secondOfDay % 60);
  return `${String(year).padStart(4, "0")}-${two(month)}-${two(day)}T${hh}:${mm}:${ss}.${micros.toString().padStart(6, "0")}Z`;
}

/** The normal spelling of a valid date-time (throws ContractInvalidError otherwise). */
export function normalizeRfc3339(text: string): string {
  return formatUtcMicros(epochMicrosOf(text));
}
