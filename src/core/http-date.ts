// HTTP-date (RFC 9110 section 5.6.7) in all three forms a recipient must accept, parsed strictly
// and in UTC: V8's Date.parse reads asctime as local time, so it is never used here.
/** The range of an ECMAScript time value (ECMA-262 21.4.1.1). */
const MAX_TIME_VALUE = 8.64e15;

const MS_PER_DAY = 86_400_000;
/** 400 Gregorian years are exactly 146,097 days: used to shift years 0-99, which Date.UTC reads as 1900-1999. */
const FOUR_CENTURIES_MS = 146_097 * MS_PER_DAY;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] as const;
const DAY_NAME = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const DAY_NAME_LONG = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = '(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
// Each pattern is anchored, with no nested or adjacent overlapping quantifiers, so matching is
// linear in the input. The `i` flag: RFC 9110 5.6.7 calls HTTP-date case-sensitive, but a name in
// another case cannot mean another date, so we accept it rather than lose the server's wait.
// IMF-fixdate = day-name "," SP day SP month SP year SP time-of-day SP "GMT" (RFC 9110 5.6.7)
const IMF_FIXDATE = new RegExp(`^[ \\t]*${DAY_NAME}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT[ \\t]*$`, 'i');
// rfc850-date = day-name-l "," SP day "-" month "-" 2DIGIT SP time-of-day SP "GMT" (RFC 9110 5.6.7, obsolete form)
const RFC850_DATE = new RegExp(`^[ \\t]*${DAY_NAME_LONG}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT[ \\t]*$`, 'i');
// asctime-date = day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP time-of-day SP year (RFC 9110 5.6.7,
// in UTC); we also take a single unpadded digit ("Nov 6"), which cannot be read two ways.
const ASCTIME_DATE = new RegExp(`^[ \\t]*${DAY_NAME} ${MONTH} (?: (\\d)|(\\d{1,2})) ${TIME} (\\d{4})[ \\t]*$`, 'i');

/** The days of a month (0-11) of a year: day 0 of the next month is its last day. The Gregorian calendar repeats every 400 years. */
function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(2000 + (year % 400), month + 1, 0)).getUTCDate();
}

/** Milliseconds since the epoch of a UTC calendar time, computed with Date.UTC (never with local time). */
function utcMs(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  // Date.UTC maps years 0-99 to 1900-1999; 400 years later the calendar repeats exactly.
  if (year < 100) return Date.UTC(year + 400, month, day, hour, minute, second) - FOUR_CENTURIES_MS;
  return Date.UTC(year, month, day, hour, minute, second);
}

/** The time in ms, or null when a field is out of range (a day past the month's end, hour 24, ...). */
function checkedUtcMs(year: number, month: number, day: number, hour: number, minute: number, second: number): number | null {
  // RFC 9110 5.6.7: day 01-31 within the month, time-of-day 00:00:00 - 23:59:60 (60: a leap second,
  // read as the first second of the next minute since ECMAScript time has no leap seconds).
  if (day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 60) return null;
  return utcMs(year, month, day, hour, minute, second);
}

function monthIndex(name: string): number {
  return MONTHS.indexOf(name.toLowerCase() as (typeof MONTHS)[number]);
}

/**
 * RFC 9110 5.6.7: a two-digit rfc850 year that "appears to be more than 50 years in the future"
 * is "the most recent year in the past that had the same last two digits". So: the latest year
 * ending in `yy` whose moment is not more than 50 calendar years after `clock`.
 */
function rfc850Year(yy: number, month: number, day: number, hour: number, minute: number, second: number, clock: number): number {
  const ref = new Date(clock);
  const limitYear = ref.getUTCFullYear() + 50;
  const limit = utcMs(limitYear, ref.getUTCMonth(), ref.getUTCDate(), ref.getUTCHours(), ref.getUTCMinutes(), ref.getUTCSeconds());
  const year = Math.floor(limitYear / 100) * 100 + yy;
  return utcMs(year, month, day, hour, minute, second) > limit ? year - 100 : year;
}

/**
 * An HTTP-date (RFC 9110 section 5.6.7) as milliseconds since the epoch, or null. Accepts the
 * three forms a recipient MUST accept: IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, the obsolete
 * RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime `Sun Nov  6 08:49:37 1994` (UTC).
 *
 * Decisions: names match in any case; a weekday that does not match the date is accepted (the
 * date and time alone fix the moment, and the RFC gives no rule to reject one), but a weekday
 * that is not a day name is refused; impossible dates (Feb 30, Feb 29 of a common year) and times
 * (hour 24, minute 60) are refused; surrounding spaces and tabs are ignored. `now` (ms, default
 * Date.now()) is only used to place RFC 850's two-digit year.
 */
export function parseHttpDate(value: string, now?: number): number | null {
  if (typeof value !== 'string' || value.length > 64) return null; // the longest valid form (rfc850, Wednesday) has 33 characters
  let m = IMF_FIXDATE.exec(value);
  if (m) return checkedUtcMs(Number(m[3]), monthIndex(m[2]!), Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  m = RFC850_DATE.exec(value);
  if (m) {
    const [month, day, hour, minute, second] = [monthIndex(m[2]!), Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6])];
    const year = rfc850Year(Number(m[3]), month, day, hour, minute, second, referenceClock(now));
    return checkedUtcMs(year, month, day, hour, minute, second);
  }
  m = ASCTIME_DATE.exec(value);
  if (m) return checkedUtcMs(Number(m[7]), monthIndex(m[1]!), Number(m[2] ?? m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  return null;
}

/** `now` when it is a usable time value, else the current time. */
export function referenceClock(now: unknown): number {
  return typeof now === 'number' && Number.isFinite(now) && Math.abs(now) <= MAX_TIME_VALUE ? now : Date.now();
}
