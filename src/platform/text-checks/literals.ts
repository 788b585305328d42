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
