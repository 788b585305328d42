// The string formats openapi.yaml's schemas name that we check ourselves, written once: the
// validator's `format: uuid`, a bot reference that is an id, a cursor's id.

/** A UUID in its plain form, either case (ajv-formats also takes `urn:uuid:...`, which Postgres does not). */
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
