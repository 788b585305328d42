// The words a label rule cannot match without (labels.ts): from a pattern's syntax tree, a
// condition on the strings a text holds that every match meets (RE2's prefilter): a sequence needs
// all that its parts need (adjacent parts of known text joined into longer strings), an
// alternation what one of its branches needs, a repetition at least once what its part needs;
// anything else (a class, a wildcard, an optional part, a backreference, a short word) needs
// nothing. Lookarounds consume nothing: a positive one's needs hold too, a negative one's never.
// A text that fails the condition is passed without running the pattern, which tries every
// position of a long text.
import { RegExpParser, type AST } from '@eslint-community/regexpp';

/** A condition on the strings a text holds: this string, all of, any of; true: nothing known. */
export type Prefilter = true | string | { all: Prefilter[] } | { any: Prefilter[] };

/** Sets of known text joined past this many strings stop growing (the alternatives multiply). */
const largestExactSet = 64;
/** ASCII strings shorter than this occur in nearly every text: no use as a filter (two CJK characters are a word). */
const shortestUseful = 3;
const tooShort = (s: string) =>
  s.length < shortestUseful && (s.length < 2 || [...s].every((char) => char.charCodeAt(0) < 0x80));

const parser = new RegExpParser({ ecmaVersion: 2024 });

/** What every text that `patterns` (`u` patterns) all match holds. */
export function prefilterOf(...patterns: string[]): Prefilter {
  return all(
    patterns.map((pattern) =>
      ofDisjunction(parser.parsePattern(pattern, 0, pattern.length, { unicode: true }).alternatives),
    ),
  );
}

/** Whether a text holding the strings `held` meets `filter`. */
export function meets(filter: Prefilter, held: ReadonlySet<string>): boolean {
  return prefilterTest(filter)(held);
}

/**
 * `filter` compiled to a test of the strings a text holds (meets, once per filter): a part that is
 * one of many strings looks its strings up in the strings held or, when the text holds fewer (an
 * ordinary one holds a few), those in its strings.
 */
export function prefilterTest(filter: Prefilter): (held: ReadonlySet<string>) => boolean {
  if (filter === true) return () => true;
  if (typeof filter === 'string') return (held) => held.has(filter);
  if ('all' in filter) {
    const parts = filter.all.map(prefilterTest);
    return (held) => parts.every((part) => part(held));
  }
  const strings = new Set(filter.any.filter((part) => typeof part === 'string'));
  const others = filter.any.filter((part) => typeof part !== 'string').map(prefilterTest);
  return (held) => {
    if (held.size < strings.size) {
      for (const s of held) if (strings.has(s)) return true;
    } else for (const s of strings) if (held.has(s)) return true;
    return others.some((part) => part(held));
  };
}

/** The strings `filter` asks about. */
export function prefilterStrings(filter: Prefilter): string[] {
  if (filter === true) return [];
  if (typeof filter === 'string') return [filter];
  return [...new Set(('all' in filter ? filter.all : filter.any).flatMap(prefilterStrings))];
}

function all(parts: Prefilter[]): Prefilter {
  const kept = parts.flatMap((part) =>
    part === true ? [] : typeof part === 'object' && 'all' in part ? part.all : [part],
  );
  return kept.length === 0 ? true : kept.length === 1 ? kept[0]! : { all: kept };
}

function any(parts: Prefilter[]): Prefilter {
  if (parts.some((part) => part === true)) return true;
  const kept = [
    ...new Set(parts.flatMap((part) => (typeof part === 'object' && 'any' in part ? part.any : [part]))),
  ];
  return kept.length === 1 ? kept[0]! : { any: kept };
}

/** One of these strings, each a string the finder can look for, or nothing known. */
const oneOf = (strings: string[]): Prefilter => (strings.some(tooShort) ? true : any(strings));

function ofDisjunction(alternatives: readonly AST.Alternative[]): Prefilter {
  return any(alternatives.map(ofSequence));
}

/** A sequence: all that its parts need, runs of known text joined. */
function ofSequence(alternative: AST.Alternative): Prefilter {
  const parts: Prefilter[] = [];
  let run: string[] = [''];
  const endRun = () => {
    if (run.some((s) => s !== '')) parts.push(oneOf(run));
    run = [''];
  };
  for (const element of alternative.elements) {
    if (isZeroWidth(element)) {
      // A positive lookaround's needs hold at this position too; text on either side stays adjacent.
      const around = positiveLookaround(element);
      if (around) parts.push(ofDisjunction(around.alternatives));
      continue;
    }
    const exact = exactly(element);
    if (exact !== null && run.length * exact.length <= largestExactSet) {
      run = run.flatMap((before) => exact.map((after) => before + after));
      continue;
    }
    endRun();
    parts.push(exact === null ? ofElement(element) : oneOf(exact));
  }
  endRun();
  return all(parts);
}

function ofElement(element: AST.Element): Prefilter {
  switch (element.type) {
    case 'Group':
    case 'CapturingGroup':
      return ofDisjunction(element.alternatives);
    case 'Quantifier': {
      // At least one copy of what the part needs, its neighbours no longer adjacent to one.
      if (element.min === 0) return true;
      const exact = exactly(element.element);
      return exact === null ? ofElement(element.element) : oneOf(exact);
    }
    default:
      return true;
  }
}

/** The strings an element matches, when they are few and known: a character, a small class, a group of them. */
function exactly(element: AST.Element): string[] | null {
  switch (element.type) {
    case 'Character':
      return [String.fromCodePoint(element.value)];
    case 'CharacterClass': {
      if (element.negate || element.unicodeSets) return null;
      const chars = element.elements.map((part) =>
        part.type === 'Character' ? String.fromCodePoint(part.value) : null,
      );
      return chars.length > 0 && chars.length <= 4 && chars.every((c) => c !== null) ? chars : null;
    }
    case 'Group': {
      const strings: string[] = [];
      for (const alternative of element.alternatives) {
        let run: string[] = [''];
        for (const part of alternative.elements) {
          if (isZeroWidth(part)) continue;
          const exact = exactly(part);
          if (exact === null || run.length * exact.length > largestExactSet) return null;
          run = run.flatMap((before) => exact.map((after) => before + after));
        }
        strings.push(...run);
        if (strings.length > largestExactSet) return null;
      }
      return strings;
    }
    case 'Quantifier':
      return element.min === 1 && element.max === 1 ? exactly(element.element) : null;
    default:
      return null;
  }
}

function isZeroWidth(element: AST.Element): boolean {
  return element.type === 'Assertion';
}

function positiveLookaround(element: AST.Element): AST.LookaroundAssertion | null {
  return element.type === 'Assertion' &&
    (element.kind === 'lookahead' || element.kind === 'lookbehind') &&
    !element.negate
    ? element
    : null;
}

/** Leading strings stop growing at this length, and a set of them past this many is no use. */
const longestLead = 12;
const mostLeads = 256;

/**
 * Strings one of which begins every match of `pattern` (a `u` pattern), after its zero-width
 * assertions: the pattern need then be tried only where one of them begins, instead of at every
 * position of a text. Null when no such set is known.
 */
export function leadingLiterals(pattern: string): string[] | null {
  const alternatives = parser.parsePattern(pattern, 0, pattern.length, { unicode: true }).alternatives;
  const leads = ofAlternatives(alternatives, [], '');
  if (leads === null || leads.some((s) => s.length < 2)) return null;
  return leads;
}

/** The strings no other of them begins (a match that begins with a longer one begins with these). */
function shortest(strings: string[]): string[] {
  const kept: string[] = [];
  for (const s of [...new Set(strings)].sort()) if (!s.startsWith(kept.at(-1) ?? '\0')) kept.push(s);
  return kept;
}

/** Leads of one of `alternatives`, each followed by `rest`, after `prefix`. */
function ofAlternatives(
  alternatives: readonly AST.Alternative[],
  rest: readonly AST.Element[],
  prefix: string,
): string[] | null {
  const leads: string[] = [];
  for (const alternative of alternatives) {
    const each = leadsOf([...alternative.elements, ...rest], prefix);
    if (each === null) return prefix === '' ? null : [prefix];
    leads.push(...each);
  }
  return fewest(leads) ?? (prefix === '' ? null : [prefix]);
}

/**
 * At most `mostLeads` of them, cut shorter until they are no more (a string's beginning begins
 * whatever the string begins); null if even their first characters are too many.
 */
function fewest(leads: string[]): string[] | null {
  let kept = shortest(leads);
  for (let length = longestLead - 1; kept.length > mostLeads && length > 0; length--)
    kept = shortest(kept.map((s) => s.slice(0, length)));
  return kept.length > mostLeads ? null : kept;
}

/**
 * Strings one of which begins every match of `elements` (each beginning with `prefix`): text known
 * character by character, an alternation's branches each, a repetition's part; where the text is
 * no longer known (a wildcard, a large class), what is known so far.
 */
function leadsOf(elements: readonly AST.Element[], prefix: string): string[] | null {
  const known = prefix === '' ? null : [prefix];
  if (prefix.length >= longestLead || elements.length === 0) return known;
  const [element, ...rest] = elements as [AST.Element, ...AST.Element[]];
  switch (element.type) {
    case 'Assertion': {
      const ahead = positiveLookaround(element);
      // A lookahead's text begins here too: its leads or the rest's, whichever are longer.
      const after = leadsOf(rest, prefix);
      if (ahead?.kind !== 'lookahead') return after;
      const inside = ofAlternatives(ahead.alternatives, [], prefix);
      if (inside === null || after === null) return inside ?? after;
      return Math.min(...inside.map((s) => s.length)) > Math.min(...after.map((s) => s.length))
        ? inside
        : after;
    }
    case 'Character':
      return leadsOf(rest, prefix + String.fromCodePoint(element.value));
    case 'CharacterClass': {
      const chars = exactly(element);
      if (chars === null) return known;
      return ofAlternativesOfStrings(chars, rest, prefix);
    }
    case 'Group':
    case 'CapturingGroup':
      return ofAlternatives(element.alternatives, rest, prefix);
    case 'Quantifier': {
      // At least one copy: what a copy begins with (and, when there is at most one, what follows
      // it); none: the rest.
      const once =
        (element.max === 1 ? leadsOf([element.element, ...rest], prefix) : null) ??
        leadsOf([element.element], prefix);
      if (element.min > 0) return once ?? known;
      const none = leadsOf(rest, prefix);
      return once === null || none === null ? known : (fewest([...once, ...none]) ?? known);
    }
    default:
      return known;
  }
}

function ofAlternativesOfStrings(
  strings: string[],
  rest: readonly AST.Element[],
  prefix: string,
): string[] | null {
  const leads: string[] = [];
  for (const s of strings) {
    const each = leadsOf(rest, prefix + s);
    if (each === null) return prefix === '' ? null : [prefix];
    leads.push(...each);
  }
  return fewest(leads) ?? (prefix === '' ? null : [prefix]);
}
