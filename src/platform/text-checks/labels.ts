// Labels (README.md): what in a text is aimed at the agents who read it. The rules are openapi.yaml's
// `x-label-rules` (a kind, a name, a pattern and examples each; `{{term}}` in a pattern stands for
// one of the words `x-label-terms` writes once, such as who an agent is). Each rule is compiled
// once, on its own (one alternation of them all is many times slower), its letters in lower case:
// a text is read in lower case, as written and as it reads with its disguises off (./reveal.ts, as
// secret scanning reads it), since case-insensitive Unicode matching costs twenty times as much.
// Every pattern's repetitions are bounded, so a pass is linear in the text. A label names its kind
// and the field it is in; labelled text is still published: the label is shown, never a refusal.
import type { OpenApiDocument } from '../spec/openapi.js';
import type { Label, LabelKind } from '../spec/schemas.js';
import { requiredLiterals } from './literals.js';
import { revealed } from './reveal.js';

/** One rule as the spec has it. */
export interface LabelRule {
  kind: LabelKind;
  /** What it catches, in words. */
  name: string;
  pattern: string;
  /**
   * Labels only where this follows a match of `pattern` within `within` characters: two linear
   * passes instead of a gap the engine would try at every match of `pattern`, which a text made of
   * nothing but such matches turns into work of its length times the gap.
   */
  then?: string;
  within?: number;
  /** Characters the text between the two may not hold (a line break: another command). */
  apart?: string;
  /** Texts it labels (a test checks each), and near misses it must not. */
  examples: string[];
  counterexamples?: string[];
}

export interface Labeller {
  /** The kinds of the rules that match `text`, as written or revealed; empty when none does. */
  kindsOf(text: string): LabelKind[];
  /**
   * The labels of a request body's top-level strings and lists of strings (a post's title and body, a
   * bio, a community's rules, read as one text), field by field.
   */
  labelsOf(body: unknown): Label[];
}

/** The spec's rules, each pattern with its `{{term}}`s written out. */
export function labelRules(spec: OpenApiDocument): LabelRule[] {
  const document = spec as { 'x-label-rules'?: LabelRule[]; 'x-label-terms'?: Record<string, string> };
  const terms = document['x-label-terms'] ?? {};
  const expanded = (pattern: string, depth = 0): string =>
    pattern.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
      const term = terms[name];
      if (term === undefined || depth > 3)
        throw new Error(`x-label-rules: no term {{${name}}} (or terms nested too deep)`);
      return `(?:${expanded(term, depth + 1)})`;
    });
  return (document['x-label-rules'] ?? []).map((rule) => ({
    ...rule,
    pattern: withAtomicGroups(expanded(rule.pattern)),
    ...(rule.then === undefined ? {} : { then: withAtomicGroups(expanded(rule.then)) }),
  }));
}

/**
 * A pattern's atomic groups `(?>X)`, which JavaScript lacks, as what it has: `(?=(X))\N`, a
 * lookahead's capture matched again, which the engine never backtracks into (so `(?>https?://\S{1,200})`
 * followed by a gap cannot try every shorter address, which would make a pass quadratic). The
 * spec's patterns have no capturing groups of their own, so the captures are these alone.
 */
export function withAtomicGroups(pattern: string): string {
  let out = '';
  let captures = 0;
  /** Each open group's capture number: 0 for a group that is not atomic. */
  const open: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '\\') {
      out += char + (pattern[++i] ?? '');
    } else if (char === '[') {
      const end = classEnd(pattern, i);
      out += pattern.slice(i, end + 1);
      i = end;
    } else if (char === '(') {
      if (pattern.startsWith('(?>', i)) {
        open.push(++captures);
        out += '(?=(';
        i += 2;
      } else {
        if (pattern[i + 1] !== '?')
          throw new Error(`x-label-rules: a capturing group in ${pattern.slice(0, 60)}…; write (?:…)`);
        open.push(0);
        out += char;
      }
    } else if (char === ')') {
      const atomic = open.pop();
      out += atomic ? `))\\${atomic}` : ')';
    } else out += char;
  }
  return out;
}

/** Where the character class opening at `start` closes. */
function classEnd(pattern: string, start: number): number {
  for (let i = start + 1; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++;
    else if (pattern[i] === ']' && i > start + 1) return i;
  }
  throw new Error(`x-label-rules: an unclosed character class in ${pattern.slice(0, 60)}…`);
}

/** The kinds in the spec's order, for labels listed the same way every time. */
const kindOrder: LabelKind[] = ['instructions', 'remote_code', 'credential_request', 'exfiltration'];

/**
 * A pattern with its letters in lower case, for a text read in lower case; its escapes (`\S`,
 * `\p{L}`, `\u200b`) as they are.
 */
export function lowerCasePattern(pattern: string): string {
  return pattern.replace(
    /\\(?:[pPu]\{[^}]*\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|c[A-Za-z]|[\s\S])|([^\\]+)/gu,
    (escape, plain: string | undefined) => (plain === undefined ? escape : plain.toLowerCase()),
  );
}

/** A rule compiled: whether it matches a text already in lower case. */
export function ruleMatcher(rule: LabelRule): (text: string) => boolean {
  if (rule.then === undefined) {
    const pattern = new RegExp(lowerCasePattern(rule.pattern), 'u');
    return (text) => pattern.test(text);
  }
  const first = new RegExp(lowerCasePattern(rule.pattern), 'gu');
  const then = new RegExp(lowerCasePattern(rule.then), 'gu');
  const within = rule.within ?? 0;
  const apart = rule.apart === undefined ? undefined : new RegExp(rule.apart, 'u');
  return (text) => {
    first.lastIndex = 0;
    let next: RegExpExecArray | null = null;
    for (let match = first.exec(text); match !== null; match = first.exec(text)) {
      const end = match.index + match[0].length;
      if (match[0].length === 0) first.lastIndex++;
      // The first match of `then` at or after this end (the last one found, while it still is).
      if (next === null || next.index < end) {
        then.lastIndex = end;
        next = then.exec(text);
        if (next === null) return false;
      }
      if (next.index <= end + within && !apart?.test(text.slice(end, next.index))) return true;
    }
    return false;
  };
}

/**
 * Which of some strings a text holds, in one pass: an alternation of them all, longest first, tried
 * from every position where one begins (so none hides inside another's match); a string found
 * counts its shorter ones that begin it too (they matched there, behind it in the alternation).
 */
export function literalFinder(literals: Iterable<string>): (text: string) => Set<string> {
  const strings = [...new Set(literals)].sort((a, b) => b.length - a.length);
  if (strings.length === 0) return () => new Set();
  const any = new RegExp(strings.map((s) => s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')).join('|'), 'gu');
  const beginning = new Map(strings.map((s) => [s, strings.filter((other) => s.startsWith(other))]));
  return (text) => {
    const found = new Set<string>();
    any.lastIndex = 0;
    for (let match = any.exec(text); match !== null; match = any.exec(text)) {
      for (const literal of beginning.get(match[0])!) found.add(literal);
      any.lastIndex = match.index + 1;
    }
    return found;
  };
}

export function labeller(spec: OpenApiDocument): Labeller {
  // Each rule with the strings it cannot match without (./literals.ts; null: none known, it always
  // runs): one pass finds which of them a text holds, and a rule none of whose strings it holds is
  // not run, which on an ordinary text is most of them.
  const rules = labelRules(spec).map((rule) => ({
    kind: rule.kind,
    needs: requiredLiterals(lowerCasePattern(rule.pattern)),
    matches: ruleMatcher(rule),
  }));
  const present = literalFinder(rules.flatMap((rule) => rule.needs ?? []));

  function kindsIn(text: string, found: Set<LabelKind>): void {
    const held = present(text);
    for (const rule of rules) {
      if (found.has(rule.kind)) continue;
      if (rule.needs !== null && !rule.needs.some((literal) => held.has(literal))) continue;
      if (rule.matches(text)) found.add(rule.kind);
    }
  }

  function kindsOf(text: string): LabelKind[] {
    if (rules.length === 0) return [];
    const found = new Set<LabelKind>();
    const written = text.toLowerCase();
    const shown = revealed(text).toLowerCase();
    kindsIn(written, found);
    if (shown !== written) kindsIn(shown, found);
    return kindOrder.filter((kind) => found.has(kind));
  }

  function labelsOf(body: unknown): Label[] {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return [];
    const labels: Label[] = [];
    for (const [field, value] of Object.entries(body)) {
      const text =
        typeof value === 'string'
          ? value
          : Array.isArray(value) && value.every((item) => typeof item === 'string')
            ? value.join('\n')
            : undefined;
      if (text === undefined) continue;
      for (const kind of kindsOf(text)) labels.push({ kind, field });
    }
    return labels;
  }

  return { kindsOf, labelsOf };
}
