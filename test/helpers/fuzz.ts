// A schema-driven request generator for contract fuzzing: values drawn from the spec's own schemas
// (valid) and deliberately broken ones (wrong type, out of range, missing, extra, hostile text).
// Seeded, so a failing case replays from its seed.
import type { JsonSchema, OpenApiDocument } from '../../src/platform/spec/openapi.js';

export interface Random {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

/** mulberry32 */
export function random(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = Math.imul(state ^ (state >>> 15), 1 | state);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
  };
}

/** Strings that have broken other servers: markup, SQL, control characters, RTL, emoji, lone surrogates. */
export const hostileStrings = [
  "'; drop table bots; --",
  '<script>alert(1)</script>',
  '\u202Eevil\u202C',
  '👩🏽‍💻🚀',
  'a\u0000b',
  '\ud800',
  '../../etc/passwd',
  '%00%2e%2e',
  ' ',
  '',
  'x'.repeat(20_000),
  '${jndi:ldap://x}',
  '{{7*7}}',
  'NaN',
  '1e400',
];

export class SchemaSampler {
  constructor(
    private readonly spec: OpenApiDocument,
    private readonly rng: Random,
  ) {}

  private resolve(schema: JsonSchema): JsonSchema {
    let current = schema;
    while (typeof current.$ref === 'string') {
      current = current.$ref
        .split('/')
        .slice(1)
        .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], this.spec) as JsonSchema;
    }
    return current;
  }

  /** A value the schema accepts, as far as a generator can tell (patterns are honoured through examples). */
  valid(input: JsonSchema, depth = 0): unknown {
    const schema = this.resolve(input);
    const { rng } = this;
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum)) return rng.pick(schema.enum);
    for (const key of ['anyOf', 'oneOf'] as const) {
      if (Array.isArray(schema[key])) return this.valid(rng.pick(schema[key] as JsonSchema[]), depth + 1);
    }
    if (Array.isArray(schema.examples) && schema.examples.length > 0 && rng.chance(0.7))
      return rng.pick(schema.examples);
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    const type = rng.pick(
      types.filter((t) => t !== 'null').length > 0 && rng.chance(0.9)
        ? types.filter((t) => t !== 'null')
        : types,
    );
    switch (type) {
      case 'null':
        return null;
      case 'boolean':
        return rng.chance(0.5);
      case 'integer':
      case 'number': {
        const min = typeof schema.minimum === 'number' ? schema.minimum : 0;
        const max = typeof schema.maximum === 'number' ? schema.maximum : min + 1000;
        const value = rng.int(Math.ceil(min), Math.floor(max));
        return type === 'integer' ? value : value;
      }
      case 'string': {
        if (schema.format === 'uuid') return crypto.randomUUID();
        if (schema.format === 'email') return `fuzz${rng.int(0, 1e6)}@example.com`;
        if (schema.format === 'date-time') return new Date().toISOString();
        const min = typeof schema.minLength === 'number' ? schema.minLength : 1;
        const max = Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : 40, 60);
        const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-_';
        return Array.from({ length: rng.int(min, Math.max(min, max)) }, () => rng.pick([...alphabet])).join(
          '',
        );
      }
      case 'array': {
        const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
        const max = Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 3, 5);
        return Array.from({ length: rng.int(min, Math.max(min, max)) }, () =>
          this.valid((schema.items as JsonSchema) ?? {}, depth + 1),
        );
      }
      case 'object':
      default: {
        if (depth > 6) return {};
        const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
        const required = new Set((schema.required ?? []) as string[]);
        const value: Record<string, unknown> = {};
        for (const [name, property] of Object.entries(properties)) {
          if (required.has(name) || rng.chance(0.5)) value[name] = this.valid(property, depth + 1);
        }
        return value;
      }
    }
  }

  /** A value broken in one way the schema forbids (or hostile in a way it allows). */
  broken(input: JsonSchema): unknown {
    const schema = this.resolve(input);
    const { rng } = this;
    const valid = this.valid(schema);
    const mutations: Array<() => unknown> = [
      () => rng.pick(hostileStrings),
      () => rng.pick([null, true, -1, 0, 2 ** 53, -(2 ** 31) - 1, 1.5, [], {}, [[[[]]]]]),
      () => (typeof valid === 'string' ? valid + rng.pick(hostileStrings) : valid),
    ];
    if (valid && typeof valid === 'object' && !Array.isArray(valid)) {
      const record = valid as Record<string, unknown>;
      const keys = Object.keys(record);
      mutations.push(
        () => ({ ...record, [`extra_${rng.int(0, 99)}`]: 1 }),
        () => {
          if (keys.length === 0) return { unexpected: true };
          const copy = { ...record };
          delete copy[rng.pick(keys)];
          return copy;
        },
        () => {
          if (keys.length === 0) return [];
          const key = rng.pick(keys);
          const property = ((schema.properties ?? {}) as Record<string, JsonSchema>)[key] ?? {};
          return { ...record, [key]: this.broken(property) };
        },
      );
    }
    return rng.pick(mutations)();
  }
}
