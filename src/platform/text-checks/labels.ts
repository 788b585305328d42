// Labels (README.md): what in a text is aimed at the agents who read it. The rules are openapi.yaml's
// `x-label-rules` (a kind, a name, a pattern and examples each; `{{term}}` in a pattern stands for
// one of the words `x-label-terms` writes once, such as who an agent is). Each rule is compiled
// once, on its own (one alternation of them all is many times slower), spelled as a text is read
// (readingPattern, labelReading): with its disguises off, in lower case, look-alike letters folded.
// Every pattern's repetitions are bounded, so a pass is linear in the text. A label names its kind
// and the field it is in; labelled text is still published: the label is shown, never a refusal.
import type { OpenApiDocument } from '../spec/openapi.js';
import type { Label, LabelKind } from '../spec/schemas.js';
import { leadingLiterals, prefilterOf, prefilterStrings, prefilterTest, type Prefilter } from './literals.js';
import { lowerCaseFolded, revealed } from './reveal.js';

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
 * A pattern as a text's reading (labelReading) spells it: its letters in lower case, NFKC and
 * look-alikes folded (`о` of Cyrillic is `o`, `｜` is `|`), so one reading serves every alphabet:
 * `отправь` reads `oтпpaвь` in the pattern as in the text. Its escapes (`\S`, `\p{L}`) as they are.
 */
export function readingPattern(pattern: string): string {
  return pattern.replace(
    /\\(?:[pPu]\{[^}]*\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|c[A-Za-z]|[\s\S])|([^\\]+)/gu,
    (escape, plain: string | undefined) =>
      plain === undefined ? escape : plain.toLowerCase().replace(/[^\p{ASCII}]/gu, readingLetter),
  );
}

/** One letter of a pattern as the reading spells it, a regular expression's syntax escaped. */
function readingLetter(letter: string): string {
  const read = lowerCaseFolded(letter.normalize('NFKC'));
  if ([...read].length !== 1)
    throw new Error(`x-label-rules: ${letter} reads as ${read}, more than one character; write it so`);
  // As an escape, which means the character itself inside a class and out of one.
  return /^[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]$/.test(read)
    ? `\\x${read.charCodeAt(0).toString(16)}`
    : read;
}

/**
 * A text as the rules read it: what it says with its disguises off (./reveal.ts, as secret scanning
 * reads it), in lower case (case-insensitive Unicode matching costs twenty times as much), its
 * look-alike letters folded (as in readingPattern: a Russian word reads in part in Latin letters,
 * in the text as in the rule, so a text is read once).
 */
export function labelReading(text: string): string {
  return lowerCaseFolded(revealed(text));
}

/**
 * A pattern's next match at or after `from`: by a scan, or tried only at `starts` (ascending) from
 * `cursor` on, the positions where one of the strings every match begins with begins
 * (./literals.ts). Both find the same match: the pattern matched at the first start at or after
 * `from` where it matches is the leftmost match a scan from there finds.
 */
function seeker(source: string) {
  const anywhere = new RegExp(source, 'gu');
  const here = new RegExp(source, 'uy');
  return (text: string, from: number, starts: ArrayLike<number> | undefined, cursor: { i: number }) => {
    if (starts === undefined) {
      anywhere.lastIndex = from;
      return anywhere.exec(text);
    }
    while (cursor.i < starts.length) {
      const start = starts[cursor.i++]!;
      if (start < from) continue;
      here.lastIndex = start;
      const match = here.exec(text);
      if (match !== null) return match;
    }
    return null;
  };
}

/**
 * A rule compiled: whether it matches a text already in lower case, its pattern tried at every
 * position, or only at `starts`, and its `then` only at `thenStarts` (each ascending, where the
 * strings its matches begin with begin: seeker): where a text holds those strings sparsely, far
 * fewer than its length.
 */
export function ruleMatcher(
  rule: LabelRule,
): (text: string, starts?: ArrayLike<number>, thenStarts?: ArrayLike<number>) => boolean {
  const nextMatch = seeker(readingPattern(rule.pattern));
  if (rule.then === undefined) return (text, starts) => nextMatch(text, 0, starts, { i: 0 }) !== null;
  const nextThen = seeker(readingPattern(rule.then));
  const within = rule.within ?? 0;
  const apart = rule.apart === undefined ? undefined : new RegExp(rule.apart, 'u');
  return (text, starts, thenStarts) => {
    const cursor = { i: 0 };
    const thenCursor = { i: 0 };
    let next: RegExpExecArray | null = null;
    let from = 0;
    for (
      let match = nextMatch(text, from, starts, cursor);
      match !== null;
      match = nextMatch(text, from, starts, cursor)
    ) {
      const end = match.index + match[0].length;
      from = match[0].length === 0 ? end + 1 : end;
      // The first match of `then` at or after this end (the last one found, while it still is).
      if (next === null || next.index < end) {
        next = nextThen(text, end, thenStarts, thenCursor);
        if (next === null) return false;
      }
      if (next.index <= end + within && !apart?.test(text.slice(end, next.index))) return true;
    }
    return false;
  };
}

/** What every text a rule labels holds, its `then` included (./literals.ts). */
export function ruleNeeds(rule: LabelRule): Prefilter {
  return prefilterOf(
    readingPattern(rule.pattern),
    ...(rule.then === undefined ? [] : [readingPattern(rule.then)]),
  );
}

/** What a literal finder saw in a text: the strings it holds, and where those asked for begin. */
export interface LiteralsFound {
  held: Set<string>;
  at: Map<string, number[]>;
}

/**
 * Which of some strings a text holds, in one pass, and where each of `placed` begins: an
 * Aho-Corasick automaton (the strings in a trie, each state's failure taken in advance), one table
 * read per character. Its table has a column per character the strings hold, ASCII's first (any
 * other character sends every state back to the root): a text's characters map to columns by a
 * table for ASCII and a Map for the rest. The states at which a string ends are numbered last, so
 * that the loop asks one comparison of every other character. A loop, not an alternation of them
 * all: a regular expression's match costs an allocation, and a text made of such strings has one
 * every few characters.
 */
export function literalFinder(
  literals: Iterable<string>,
  placed: Iterable<string> = [],
): (text: string) => LiteralsFound {
  const wanted = new Set(placed);
  const strings = [...new Set([...literals, ...wanted])];
  if (strings.some((s) => s.length < 2))
    throw new Error('literalFinder: strings of one character would match almost everywhere');
  // Columns: 0 for every character no string holds, then one per character in the strings, ASCII
  // first (an ASCII text reads the start of each row).
  const asciiColumn = new Int32Array(128);
  const otherColumn = new Map<number, number>();
  let columns = 1;
  const columnOf = (code: number) => (code < 128 ? asciiColumn[code]! : (otherColumn.get(code) ?? 0));
  for (const ascii of [true, false])
    for (const s of strings)
      for (let i = 0; i < s.length; i++) {
        const code = s.charCodeAt(i);
        if (code < 128 !== ascii || columnOf(code) !== 0) continue;
        if (ascii) asciiColumn[code] = columns++;
        else otherColumn.set(code, columns++);
      }
  // The trie: state 0 is the root; `children[state]` by column while it is built.
  const children = [new Map<number, number>()];
  const ending: number[][] = [[]];
  strings.forEach((s, id) => {
    let state = 0;
    for (let i = 0; i < s.length; i++) {
      const column = columnOf(s.charCodeAt(i));
      let next = children[state]!.get(column);
      if (next === undefined) {
        next = children.push(new Map<number, number>()) - 1;
        ending.push([]);
        children[state]!.set(column, next);
      }
      state = next;
    }
    ending[state]!.push(id);
  });
  // Breadth first: each state's move on every column (its child, or its failure's move), and what
  // ends at it (its own strings, then its failure's, which are suffixes of them).
  const states = children.length;
  const trieMoves = new Int32Array(states * columns);
  const failure = new Int32Array(states);
  const queue: number[] = [];
  for (const [column, child] of children[0]!) {
    trieMoves[column] = child;
    queue.push(child);
  }
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head]!;
    ending[state]!.push(...ending[failure[state]!]!);
    for (let column = 0; column < columns; column++) {
      const child = children[state]!.get(column);
      const fallback = trieMoves[failure[state]! * columns + column]!;
      if (child === undefined) trieMoves[state * columns + column] = fallback;
      else {
        trieMoves[state * columns + column] = child;
        failure[child] = fallback;
        queue.push(child);
      }
    }
  }
  // Numbered again: the states at which nothing ends first (the root still 0), then the others
  // from `firstEnding` on, what ends at each listed in `ends` from `endsFrom[state - firstEnding]`.
  // The moves in 16 bits while the states fit (the rules' strings make a few thousand: 2.5 MB, not 5).
  const order = [0, ...queue].sort((a, b) => Number(ending[a]!.length > 0) - Number(ending[b]!.length > 0));
  const renumbered = new Int32Array(states);
  order.forEach((state, number) => (renumbered[state] = number));
  const firstEnding = order.findIndex((state) => ending[state]!.length > 0);
  const moves = states <= 0xffff ? new Uint16Array(states * columns) : new Int32Array(states * columns);
  for (let state = 0; state < states; state++)
    for (let column = 0; column < columns; column++)
      moves[renumbered[state]! * columns + column] = renumbered[trieMoves[state * columns + column]!]!;
  const endings = firstEnding < 0 ? [] : order.slice(firstEnding).map((state) => ending[state]!);
  const endsFrom = new Int32Array(endings.length + 1);
  endings.forEach((list, k) => (endsFrom[k + 1] = endsFrom[k]! + list.length));
  const ends = Int32Array.from(endings.flat());
  const last = firstEnding < 0 ? states : firstEnding;
  const lengths = Int32Array.from(strings, (s) => s.length);
  const isPlaced = Uint8Array.from(strings, (s) => (wanted.has(s) ? 1 : 0));
  return (text) => {
    const seen = new Uint8Array(strings.length);
    const heldIds: number[] = [];
    let where: Array<number[] | undefined> | undefined;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      state = moves[state * columns + (code < 128 ? asciiColumn[code]! : (otherColumn.get(code) ?? 0))]!;
      if (state < last) continue;
      for (let k = endsFrom[state - last]!, end = endsFrom[state - last + 1]!; k < end; k++) {
        const id = ends[k]!;
        if (seen[id] === 0) {
          seen[id] = 1;
          heldIds.push(id);
        }
        if (isPlaced[id] === 0) continue;
        const start = i - lengths[id]! + 1;
        where ??= new Array<number[] | undefined>(strings.length);
        const list = where[id];
        if (list === undefined) where[id] = [start];
        else list.push(start);
      }
    }
    const held = new Set<string>();
    for (const id of heldIds) held.add(strings[id]!);
    const at = new Map<string, number[]>();
    if (where !== undefined)
      for (const id of heldIds) if (where[id] !== undefined) at.set(strings[id]!, where[id]);
    return { held, at };
  };
}

/**
 * Where a rule whose matches begin with one of `leads` is tried in a text: nowhere (none of them is
 * in it), at the positions where they begin, or (null) everywhere, when they begin at so many that
 * a scan costs less.
 */
function startsIn(leads: string[], at: Map<string, number[]>, length: number): ArrayLike<number> | null {
  const lists: number[][] = [];
  let count = 0;
  for (const lead of leads) {
    const list = at.get(lead);
    if (list === undefined) continue;
    lists.push(list);
    count += list.length;
  }
  if (count > length / scanAbove) return null;
  if (lists.length <= 1) return lists[0] ?? [];
  const starts = new Int32Array(count);
  let i = 0;
  for (const list of lists) for (const start of list) starts[i++] = start;
  return starts.sort();
}

/** A rule is tried at every position once the strings it begins with begin at more than one in this many. */
const scanAbove = 16;

export function labeller(spec: OpenApiDocument): Labeller {
  // Each rule with what a text it matches holds (./literals.ts; true: nothing known, it always
  // runs): one pass finds which of the strings that asks about a text holds, and a rule whose
  // condition they fail is not run, which on an ordinary text is most of them.
  // Each rule is tried only where one of the strings its matches begin with begins (null: none
  // known), and its `then` likewise, unless they begin at so many positions that a scan of the
  // text costs less.
  const rules = labelRules(spec).map((rule) => {
    const pattern = readingPattern(rule.pattern);
    const needs = ruleNeeds(rule);
    return {
      kind: rule.kind,
      needs,
      meets: prefilterTest(needs),
      leads: leadingLiterals(pattern),
      thenLeads: rule.then === undefined ? null : leadingLiterals(readingPattern(rule.then)),
      matches: ruleMatcher(rule),
    };
  });
  const present = literalFinder(
    rules.flatMap((rule) => prefilterStrings(rule.needs)),
    rules.flatMap((rule) => [...(rule.leads ?? []), ...(rule.thenLeads ?? [])]),
  );
  // A condition is met only by a text that holds one of its strings at least: a rule is weighed
  // only if one of the strings a text holds names it (an ordinary text holds a few of them).
  const rulesAsking = new Map<string, number[]>();
  rules.forEach((rule, index) => {
    for (const s of prefilterStrings(rule.needs)) rulesAsking.set(s, [...(rulesAsking.get(s) ?? []), index]);
  });
  const alwaysWeighed = Uint8Array.from(rules, (rule) => (rule.needs === true ? 1 : 0));

  function kindsIn(text: string, found: Set<LabelKind>): void {
    const { held, at } = present(text);
    const weighed = alwaysWeighed.slice();
    for (const s of held) for (const index of rulesAsking.get(s) ?? []) weighed[index] = 1;
    for (let index = 0; index < rules.length; index++) {
      const rule = rules[index]!;
      if (weighed[index] === 0 || found.has(rule.kind)) continue;
      if (!rule.meets(held)) continue;
      const starts = rule.leads === null ? null : startsIn(rule.leads, at, text.length);
      if (starts?.length === 0) continue;
      const thenStarts = rule.thenLeads === null ? null : startsIn(rule.thenLeads, at, text.length);
      if (thenStarts?.length === 0) continue;
      if (rule.matches(text, starts ?? undefined, thenStarts ?? undefined)) found.add(rule.kind);
    }
  }

  function kindsOf(text: string): LabelKind[] {
    if (rules.length === 0) return [];
    const found = new Set<LabelKind>();
    kindsIn(labelReading(text), found);
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
