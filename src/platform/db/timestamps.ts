// Reading `timestamptz` values from a Postgres server. pg's own parser (postgres-date) runs three
// regular expressions per value and allocates their matches: on a feed page, with a timestamp per
// post, that was the most expensive part of reading a row after the text itself. The server always
// writes them as `YYYY-MM-DD HH:MM:SS[.ffffff]±HH[:MM[:SS]]` (ISO DateStyle, the only one pg reads);
// that shape is read here digit by digit, and anything else (BC, infinity, a five-digit year, another
// DateStyle) is left to postgres-date, as before.
import pg from 'pg';

const timestamptzOid = 1184;
const parseDefault = pg.types.getTypeParser(timestamptzOid, 'text') as (text: string) => Date | number;

/** The pool's `types`: pg's parsers, with `timestamptz` read by {@link parseTimestamptz}. */
export const poolTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
    return oid === timestamptzOid && format !== 'binary'
      ? parseTimestamptz
      : (pg.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown);
  },
};

export function parseTimestamptz(text: string): Date | number {
  const length = text.length;
  if (
    length < 22 ||
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 32 || // space
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58
  ) {
    return parseDefault(text);
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  let at = 19;
  let milliseconds = 0;
  if (text.charCodeAt(at) === 46) {
    // .f to .ffffff: a Date keeps the milliseconds (the first three digits; truncated, as postgres-date).
    for (let scale = 100, i = at + 1; i <= at + 3 && isDigit(text.charCodeAt(i)); i++, scale /= 10) {
      milliseconds += (text.charCodeAt(i) - 48) * scale;
    }
    for (at++; isDigit(text.charCodeAt(at)); at++);
  }
  const sign = text.charCodeAt(at) === 43 ? 1 : text.charCodeAt(at) === 45 ? -1 : 0;
  let offsetSeconds = digits(text, at + 1, 2) * 3600;
  at += 3;
  if (text.charCodeAt(at) === 58) {
    offsetSeconds += digits(text, at + 1, 2) * 60;
    at += 3;
    if (text.charCodeAt(at) === 58) {
      offsetSeconds += digits(text, at + 1, 2);
      at += 3;
    }
  }
  if (
    sign === 0 ||
    at !== length ||
    // Before year 1000, Date.UTC would read 0099 as 1999: postgres-date corrects that.
    !(year >= 1000) ||
    // A character that is not a digit made its number NaN, and so the sum.
    Number.isNaN(month + day + hour + minute + second + offsetSeconds)
  ) {
    return parseDefault(text);
  }
  return new Date(
    Date.UTC(year, month - 1, day, hour, minute, second, milliseconds) - sign * offsetSeconds * 1000,
  );
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** The number written by `count` decimal digits at `start`, or NaN if one of them is not a digit. */
function digits(text: string, start: number, count: number): number {
  let value = 0;
  for (let i = start; i < start + count; i++) {
    const code = text.charCodeAt(i);
    if (!isDigit(code)) return NaN;
    value = value * 10 + code - 48;
  }
  return value;
}
