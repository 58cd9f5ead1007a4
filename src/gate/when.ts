// A rule's `when`: local hours, weekdays and dates in a named IANA time zone. Local time comes from
// Intl, so daylight saving changes are the time zone database's, not arithmetic of ours.
import type { Rule, Weekday } from './rules.ts';

/** A moment as a wall clock in one time zone shows it. */
export interface LocalTime {
  /** YYYY-MM-DD */
  date: string;
  weekday: Weekday;
  /** Minutes since local midnight. */
  minutes: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
    });
    formats.set(timeZone, format);
  }
  return format;
}

export function localTime(now: Date, timeZone: string): LocalTime {
  const parts: Record<string, string> = {};
  for (const part of formatFor(timeZone).formatToParts(now)) parts[part.type] = part.value;
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    weekday: parts.weekday!.toLowerCase().slice(0, 3) as Weekday,
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Local times of one moment by time zone: Intl is slow enough that one decision asks each zone once. */
export type LocalClock = (timeZone: string) => LocalTime;

export function localClock(now: Date): LocalClock {
  const seen = new Map<string, LocalTime>();
  return (timeZone) => {
    let local = seen.get(timeZone);
    if (!local) seen.set(timeZone, (local = localTime(now, timeZone)));
    return local;
  };
}

/** Whether the moment `clock` reads falls inside the rule's `when` (a rule without one always applies). */
export function inWindow(when: Rule['when'], clock: LocalClock): boolean {
  if (!when) return true;
  const local = clock(when.tz);
  if (when.from && local.date < when.from) return false;
  if (when.until && local.date > when.until) return false;
  if (when.weekdays && !when.weekdays.includes(local.weekday)) return false;
  if (when.hours) {
    const [start, end] = when.hours.split('-').map(toMinutes) as [number, number];
    // "22:00-06:00" wraps midnight: it covers the evening and the early morning.
    const inside =
      start <= end
        ? local.minutes >= start && local.minutes < end
        : local.minutes >= start || local.minutes < end;
    if (!inside) return false;
  }
  return true;
}

/** The day a use is counted on: the local date in the rule's time zone (UTC without one). */
export function countingDay(when: Rule['when'], clock: LocalClock): string {
  return clock(when?.tz ?? 'UTC').date;
}
