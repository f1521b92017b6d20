import { isoSeconds } from '@thumbforge/contracts';

export interface CalendarPeriod {
  /** ISO 8601 UTC, inclusive. */
  periodStart: string;
  /** ISO 8601 UTC, exclusive: the first instant of the next month. */
  periodEnd: string;
}

/** The UTC calendar month containing `at`: allowances are per calendar month (DESIGN §5). */
export function calendarPeriod(at: Date): CalendarPeriod {
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth();
  return {
    periodStart: isoSeconds(new Date(Date.UTC(year, month, 1))),
    periodEnd: isoSeconds(new Date(Date.UTC(year, month + 1, 1))),
  };
}

/** True when `now` lies at or after the end of the period: the next request starts a new one. */
export function periodHasEnded(period: Pick<CalendarPeriod, 'periodEnd'>, now: Date): boolean {
  return now.getTime() >= Date.parse(period.periodEnd);
}
