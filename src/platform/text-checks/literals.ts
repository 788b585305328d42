// The words a label rule cannot match without (labels.ts): from a pattern's syntax tree, a set of
// strings one of which every match holds, so that a text holding none of them is passed without
// running the pattern, which tries every position of a long text. Sound by construction, as RE2's
// prefilter is: a sequence needs what any of its parts needs (adjacent parts of known text joined
// into longer strings), an alternation what one of its branches needs, a repetition at least once
// what its part needs; anything else (a class, a wildcard, an optional part, a backreference) needs
// nothing. Lookarounds consume nothing: a positive one's needs hold too, a negative one's never.
import { RegExpParser, type AST } from '@eslint-community/regexpp';

/** What a node needs: exactly one of these strings, at least one of these somewhere, or nothing known. */
type Needs = { exact: string[] } | { any: string[] } | null;

/** Sets of known text joined past this many strings stop growing (the alternatives multiply). */
const largestExactSet = 64;
/** ASCII strings shorter than this occur in nearly every text: no use as a filter (two CJK characters are a word). */
const shortestUseful = 3;
const tooShort = (s: string) =>
  s.length < shortestUseful && (s.length < 2 || [...s].every((char) => char.charCodeAt(0) < 0x80));

const parser = new RegExpParser({ ecmaVersion: 2024 });

/**
 * Strings one of which every match of `pattern` (a `u` pattern) holds; null when no such set of
 * useful strings is known (the pattern then runs on every text).
 */
export function requiredLiterals(pattern: string): string[] | null {
  const needs = ofDisjunction(
    parser.parsePattern(pattern, 0, pattern.length, { unicode: true }).alternatives,
  );
  const strings = needs === null ? null : 'exact' in needs ? needs.exact : needs.any;
  if (strings === null || strings.length === 0 || strings.some(tooShort)) return null;
  return [...new Set(strings)];
}

function ofDisjunction(alternatives: AST.Alternative[]): Needs {
  const each = alternatives.map(ofSequence);
  if (each.some((needs) => needs === null)) return null;
  const sets = each as Array<{ exact: string[] } | { any: string[] }>;
  if (sets.every((needs) => 'exact' in needs)) {
    const exact = sets.flatMap((needs) => needs.exact);
    if (exact.length <= largestExactSet) return { exact };
  }
  return { any: sets.flatMap((needs) => ('exact' in needs ? needs.exact : needs.any)) };
}

/** A sequence: the best of what its parts need, runs of known text joined. */
function ofSequence(alternative: AST.Alternative): Needs {
  let run: string[] = [''];
  let broken = false;
  const candidates: string[][] = [];
  const endRun = () => {
    if (run.some((s) => s !== '')) candidates.push(run);
    run = [''];
    broken = true;
  };
  for (const element of alternative.elements) {
    if (isZeroWidth(element)) {
      // A positive lookaround's needs hold at this position too; text on either side stays adjacent.
      const ahead = positiveLookaround(element);
      if (ahead) {
        const needs = ofDisjunction(ahead.alternatives);
        if (needs) candidates.push('exact' in needs ? needs.exact : needs.any);
      }
      continue;
    }
    const needs = ofElement(element);
    if (needs !== null && 'exact' in needs && run.length * needs.exact.length <= largestExactSet) {
      run = run.flatMap((before) => needs.exact.map((after) => before + after));
      continue;
    }
    endRun();
    if (needs !== null) candidates.push('exact' in needs ? needs.exact : needs.any);
  }
  if (!broken) return { exact: run };
  endRun();
  const best = candidates.sort((a, b) => score(b) - score(a))[0];
  return best ? { any: best } : null;
}

/** A set's worth as a filter: its shortest string's length, then fewer strings. */
function score(strings: string[]): number {
  return Math.min(...strings.map((s) => s.length)) * 1000 - strings.length;
}

function ofElement(element: AST.Element): Needs {
  switch (element.type) {
    case 'Character':
      return { exact: [String.fromCodePoint(element.value)] };
    case 'CharacterClass': {
      if (element.negate || element.unicodeSets) return null;
      const chars = element.elements.map((part) =>
        part.type === 'Character' ? String.fromCodePoint(part.value) : null,
      );
      return chars.every((c) => c !== null) && chars.length > 0 && chars.length <= 4
        ? { exact: chars }
        : null;
    }
    case 'Group':
    case 'CapturingGroup':
      return ofDisjunction(element.alternatives);
    case 'Quantifier': {
      if (element.min === 0) return null;
      const needs = ofElement(element.element);
      if (needs === null || (element.min === 1 && element.max === 1)) return needs;
      // Repeated: at least one copy of what the part needs, its neighbours no longer adjacent to one.
      return { any: 'exact' in needs ? needs.exact : needs.any };
    }
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
      const chars = ofElement(element);
      if (chars === null || !('exact' in chars)) return known;
      return ofAlternativesOfStrings(chars.exact, rest, prefix);
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
