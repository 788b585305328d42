// Secret scanning (push protection; README.md): the detectors are openapi.yaml's
// `x-secret-detectors`, compiled once into one pattern that a text is matched against in one pass.
// Every detector's pattern is bounded (no unbounded repetition), so the pass is linear in the text.
// A text is read as it is and as it reads with its disguises taken off (./reveal.ts), and the
// strings of one object together too, so that a key split between a post's title and body is found.
import type { OpenApiDocument } from '../spec/openapi.js';
import type { FieldError } from '../spec/problems.js';
import type { SecretKind } from '../spec/schemas.js';
import { isWellFormedApiKey } from '../admission/secrets.js';
import { revealed } from './reveal.js';

/** One detector as the spec has it. */
interface Detector {
  kind: SecretKind;
  /** The kind in words, as the 422 names it ("an Anthropic API key"). */
  name: string;
  pattern: string;
  /** A pattern that only a checksum can confirm (this platform's keys). */
  checksum?: 'bot_platform';
}

/**
 * A secret found: where (the fields it lies in, by JSON pointer: one, or those it was split
 * between), what kind, and the secret itself as revealed (for revoking one of ours; never echoed).
 */
export interface Finding {
  pointers: string[];
  kind: SecretKind;
  name: string;
  secret: string;
}

export interface SecretScanner {
  /** The first secret in a text, as written or once its disguises are off, or undefined. */
  scanText(text: string): Omit<Finding, 'pointers'> | undefined;
  /**
   * The first secret in any string of a JSON value (a request body), or split between the strings
   * of one object (a post's title and body), with the JSON pointers of where it lies.
   */
  scanBody(body: unknown): Finding | undefined;
}

function detectorsOf(spec: OpenApiDocument): Detector[] {
  return (spec as { 'x-secret-detectors'?: Detector[] })['x-secret-detectors'] ?? [];
}

/** What is looked for, in words ("a GitHub token"), for the documents that tell bots. */
export function secretDetectorNames(spec: OpenApiDocument): string[] {
  return detectorsOf(spec).map((detector) => detector.name);
}

export function secretScanner(spec: OpenApiDocument): SecretScanner {
  const detectors = detectorsOf(spec);
  // One alternation, a named group per detector: the first that matches at a position wins (the
  // spec lists sk-ant- before sk-).
  const combined = new RegExp(detectors.map((d, i) => `(?<d${i}>${d.pattern})`).join('|'), 'g');

  /** The first secret in `text` as it is, with where it ends. */
  function firstSecret(text: string) {
    combined.lastIndex = 0;
    for (let match = combined.exec(text); match !== null; match = combined.exec(text)) {
      const index = detectors.findIndex((_, i) => match.groups?.[`d${i}`] !== undefined);
      const detector = detectors[index]!;
      if (detector.checksum === 'bot_platform' && !isWellFormedApiKey(match[0])) continue;
      return {
        found: { kind: detector.kind, name: detector.name, secret: match[0] },
        start: match.index,
        end: match.index + match[0].length,
      };
    }
    return undefined;
  }

  /** The first secret in a text as written, else in it as revealed (`shown`, when known already). */
  function scanText(text: string, shown?: string) {
    if (detectors.length === 0) return undefined;
    const plain = firstSecret(text);
    if (plain) return plain.found;
    shown ??= revealed(text);
    return shown === text ? undefined : firstSecret(shown)?.found;
  }

  /** Every string of a value with its JSON pointer, and each object's own strings as a group. */
  function strings(value: unknown, pointer: string, all: Field[], groups: Field[][]) {
    if (typeof value === 'string') all.push({ pointer, text: value });
    else if (Array.isArray(value)) value.forEach((item, i) => strings(item, `${pointer}/${i}`, all, groups));
    else if (value !== null && typeof value === 'object') {
      const own: Field[] = [];
      for (const [key, item] of Object.entries(value)) {
        const at = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        if (typeof item === 'string') {
          const field = { pointer: at, text: item };
          all.push(field);
          own.push(field);
        } else strings(item, at, all, groups);
      }
      if (own.length > 1) groups.push(own);
    }
  }

  /**
   * A secret split between an object's strings, read one after another as revealed (a title's end
   * and a body's start): the fields the match touches.
   */
  function scanTogether(fields: Field[], shown: Map<Field, string>): Finding | undefined {
    const parts = fields.map((field) => shown.get(field)!);
    const found = firstSecret(parts.join(''));
    if (!found) return undefined;
    const pointers: string[] = [];
    let offset = 0;
    for (const [i, part] of parts.entries()) {
      if (found.start < offset + part.length && found.end > offset) pointers.push(fields[i]!.pointer);
      offset += part.length;
    }
    return { ...found.found, pointers };
  }

  function scanBody(body: unknown): Finding | undefined {
    if (detectors.length === 0) return undefined;
    const all: Field[] = [];
    const groups: Field[][] = [];
    strings(body, '', all, groups);
    // Each string revealed once, for itself and for its object's strings read together.
    const shown = new Map<Field, string>();
    for (const field of all) {
      shown.set(field, revealed(field.text));
      const found = scanText(field.text, shown.get(field));
      if (found) return { ...found, pointers: [field.pointer] };
    }
    for (const group of groups) {
      const found = scanTogether(group, shown);
      if (found) return found;
    }
    return undefined;
  }

  return { scanText, scanBody };
}

interface Field {
  pointer: string;
  text: string;
}

/** The field errors a finding is, naming each field and the kind, never the secret. */
export function findingErrors(finding: Pick<Finding, 'pointers' | 'name'>): FieldError[] {
  const split = finding.pointers.length > 1;
  return finding.pointers.map((pointer) => ({
    in: 'body',
    pointer,
    message: split ? `holds part of ${finding.name}, split between fields` : `holds ${finding.name}`,
  }));
}
