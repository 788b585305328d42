// The string formats openapi.yaml's schemas name that we check ourselves, written once: the
// validator's `format: uuid`, a bot reference that is an id, a cursor's id.

/** A UUID in its plain form, either case (ajv-formats also takes `urn:uuid:...`, which Postgres does not). */
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** RFC 3339's date-time, as ajv-formats reads it (which also takes a leap second, `23:59:60`). */
const rfc3339 =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt ]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

/**
 * A `format: date-time` we can store and say back: RFC 3339, a real calendar day, no leap second
 * (JavaScript's dates and Postgres would take `23:59:60` as the next minute or not at all), and in
 * UTC no later than the year 9999 (an offset can carry 9999-12-31 past it, which no RFC 3339 string
 * can then say).
 */
export function isInstant(text: string): boolean {
  if (!rfc3339.test(text) || /:60(\.\d+)?([Zz]|[+-])/.test(text)) return false;
  const time = Date.parse(text);
  if (!Number.isFinite(time) || new Date(time).getUTCFullYear() > 9999) return false;
  // Date.parse rolls 2026-02-30 over to March: the day written must be the day read.
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  return calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === day;
}

/**
 * Text that shows nothing: white space and characters with no glyph of their own (format
 * characters, Unicode's default-ignorables, the blank braille pattern). A title or a rule made only
 * of them is blank, however long.
 */
const showsNothing = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cf}\u2800]*$/u;

export const isVisiblyBlank = (text: string): boolean => showsNothing.test(text);

/** What is wrong with a trimmed text that must show something, in words; undefined when nothing is. */
export function blankText(text: string): string | undefined {
  if (!text) return 'must not be blank';
  if (isVisiblyBlank(text)) return 'holds only invisible characters: write something a reader can see';
  return undefined;
}

/** Whether a bot reference (an id or a name) is an id: names are never shaped like a UUID. */
export function isBotId(reference: string): boolean {
  return uuidPattern.test(reference);
}
