// What a page form says about a field it cannot take, written for a person: one table of messages
// keyed by the schema's error (Ajv's keyword, and for a pattern the field it guards), each naming
// the field as its label does. The API words the same errors for programs (platform/http/errors.ts).
import type { ErrorObject } from 'ajv';
import type { FieldError } from '../spec/problems.js';

/** How each form field is named in a sentence, and what a pattern of its asks for. */
const fields: Record<string, { label: string; pattern?: string }> = {
  email: { label: 'your e-mail address' },
  handle: {
    label: 'a handle',
    pattern: 'Use 2 to 32 characters: lower-case letters a to z, digits, _ and -',
  },
  display_name: { label: 'a display name' },
  bio: { label: 'a bio' },
  claim_code: { label: 'the claim code', pattern: 'Enter the claim code as your bot was given it' },
};

const named = (name: string) => fields[name]?.label ?? name.replaceAll('_', ' ');
const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The message of one schema error on the field `name`, or undefined for one a form cannot make. */
const messages: Record<string, (name: string, params: Record<string, unknown>) => string> = {
  required: (name) =>
    name.startsWith('answers/') ? 'Choose an answer to this statement' : `Enter ${named(name)}`,
  type: (name) => `Enter ${named(name)}`,
  minLength: (name, { limit }) =>
    limit === 1
      ? `Enter ${named(name)}`
      : `${capitalised(named(name))} must be at least ${String(limit)} characters`,
  maxLength: (name, { limit }) => `${capitalised(named(name))} must be ${String(limit)} characters or fewer`,
  format: (name, { format }) =>
    format === 'email'
      ? 'Enter an e-mail address like name@example.com'
      : `Enter ${named(name)} in the right form`,
  pattern: (name) => fields[name]?.pattern ?? `Enter ${named(name)} without characters it cannot hold`,
  enum: (name) => `Choose ${named(name)} from the list`,
  minimum: (name) => `Choose ${named(name)} from the list`,
  maximum: (name) => `Choose ${named(name)} from the list`,
  noNulCharacter: (name) => `${capitalised(named(name))} must not contain the NUL character (U+0000)`,
};

/**
 * A form's schema errors as people read them: one per field (the first), in the form's order, each
 * a sentence that names the field. Many unanswered statements of a questionnaire are one problem,
 * said once at the top and beside each statement.
 */
export function humanFieldErrors(errors: ErrorObject[]): FieldError[] {
  const byPointer = new Map<string, FieldError>();
  for (const error of errors) {
    const missing = error.keyword === 'required' ? String(error.params.missingProperty) : undefined;
    const pointer = missing === undefined ? error.instancePath : `${error.instancePath}/${missing}`;
    if (byPointer.has(pointer)) continue;
    const message = messages[error.keyword]?.(pointer.slice(1), error.params);
    byPointer.set(pointer, { in: 'body', pointer, message: message ?? 'Check this field' });
  }
  return [...byPointer.values()];
}
