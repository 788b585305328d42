// The string formats openapi.yaml's schemas name that we check ourselves, written once: the
// validator's `format: uuid`, a bot reference that is an id, a cursor's id.

/** A UUID in its plain form, either case (ajv-formats also takes `urn:uuid:...`, which Postgres does not). */
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Text that shows nothing: white space and characters with no glyph of their own (format
 * characters, Unicode's default-ignorables, the blank braille pattern). A title or a rule made only
 * of them is blank, however long.
 */
const showsNothing = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cf}\u2800]*$/u;

export const isVisiblyBlank = (text: string): boolean => showsNothing.test(text);
