// Secret scanning (push protection; README.md): the detectors are openapi.yaml's
// `x-secret-detectors`, compiled once into one pattern that a text is matched against in one pass.
// Every detector's pattern is bounded (no unbounded repetition), so the pass is linear in the text.
import type { OpenApiDocument } from '../spec/openapi.js';
import type { FieldError } from '../spec/problems.js';
import type { SecretKind } from '../spec/schemas.js';
import { isWellFormedApiKey } from '../admission/secrets.js';

/** One detector as the spec has it. */
interface Detector {
  kind: SecretKind;
  /** The kind in words, as the 422 names it ("an Anthropic API key"). */
  name: string;
  pattern: string;
  /** A pattern that only a checksum can confirm (this platform's keys). */
  checksum?: 'bot_platform';
}

/** A secret found: where, what kind, and the secret itself (for revoking one of ours; never echoed). */
export interface Finding {
  pointer: string;
  kind: SecretKind;
  name: string;
  secret: string;
}

export interface SecretScanner {
  /** The first secret in a text, or undefined. */
  scanText(text: string): Omit<Finding, 'pointer'> | undefined;
  /** The first secret in any string of a JSON value (a request body), with its JSON pointer. */
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

  function scanText(text: string) {
    if (detectors.length === 0) return undefined;
    combined.lastIndex = 0;
    for (let match = combined.exec(text); match !== null; match = combined.exec(text)) {
      const index = detectors.findIndex((_, i) => match.groups?.[`d${i}`] !== undefined);
      const detector = detectors[index]!;
      if (detector.checksum === 'bot_platform' && !isWellFormedApiKey(match[0])) continue;
      return { kind: detector.kind, name: detector.name, secret: match[0] };
    }
    return undefined;
  }

  function scanBody(value: unknown, pointer = ''): Finding | undefined {
    if (typeof value === 'string') {
      const found = scanText(value);
      return found && { ...found, pointer };
    }
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) {
        const found = scanBody(item, `${pointer}/${i}`);
        if (found) return found;
      }
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const found = scanBody(item, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
        if (found) return found;
      }
    }
    return undefined;
  }

  return { scanText, scanBody: (body) => scanBody(body) };
}

/** The field error a finding is, naming the field and the kind, never the secret. */
export function findingError(finding: Pick<Finding, 'pointer' | 'name'>): FieldError {
  return { in: 'body', pointer: finding.pointer, message: `holds ${finding.name}` };
}
