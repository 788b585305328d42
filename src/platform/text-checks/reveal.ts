// What a text says once its disguises are taken off, for the detectors to read (README.md): a key
// with a zero-width space inside, in fullwidth or Cyrillic look-alike letters, or written as
// `bp%5F...` or `bp&#95;...` is still a key to whoever copies it. Each pass below is one linear
// regular-expression replacement (or Unicode normalization), and a text of printable ASCII without
// `%` or `&` (nearly every text) is returned as it is, untouched.

/**
 * Characters that render as nothing: zero-width spaces and joiners, soft hyphens, word joiners,
 * byte-order marks, bidirectional marks, variation selectors, tags (Unicode's Default_Ignorable_Code_Point).
 */
const invisible = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * Letters and marks that look like those of the keys' alphabets (ASCII letters, digits, `_`, `-`)
 * but are not, and that NFKC leaves as they are: Cyrillic, Greek and Armenian look-alikes (after
 * Unicode's confusables), and the dashes. Pairs of look-alike and ASCII letter.
 */
const lookAlikes: Record<string, string> = Object.fromEntries(
  [
    // Cyrillic
    'аa',
    'сc',
    'ԁd',
    'еe',
    'һh',
    'іi',
    'јj',
    'кk',
    'ӏl',
    'оo',
    'рp',
    'ԛq',
    'ѕs',
    'ԝw',
    'хx',
    'уy',
    'АA',
    'ВB',
    'СC',
    'ЕE',
    'НH',
    'ІI',
    'ЈJ',
    'КK',
    'МM',
    'ОO',
    'РP',
    'ԚQ',
    'ЅS',
    'ТT',
    'ԜW',
    'ХX',
    'ҮY',
    // Greek
    'αa',
    'ϲc',
    'εe',
    'ιi',
    'ϳj',
    'κk',
    'νv',
    'οo',
    'ρp',
    'υu',
    'χx',
    'γy',
    'ΑA',
    'ΒB',
    'ΕE',
    'ΖZ',
    'ΗH',
    'ΙI',
    'ΚK',
    'ΜM',
    'ΝN',
    'ΟO',
    'ΡP',
    'ΤT',
    'ΥY',
    'ΧX',
    // Armenian
    'հh',
    'ոn',
    'օo',
    'սu',
    'ցg',
    // Dashes and the minus sign, for `sk-` and PEM's `-----`
    '‐-',
    '‒-',
    '–-',
    '—-',
    '―-',
    '−-',
    '⁃-',
  ].map((pair) => [...pair] as [string, string]),
);
const lookAlike = new RegExp(`[${Object.keys(lookAlikes).join('')}]`, 'u');

/**
 * Every UTF-16 code unit's folded unit: itself, or the ASCII letter it looks like (every look-alike
 * is one unit, and a surrogate maps to itself, so a text is folded unit by unit).
 */
const foldedUnits = unitTable(Object.entries(lookAlikes));

/**
 * The same for a text in lower case: each look-alike's lower case is the lower case of what it looks
 * like (`в` reads `b`, as `В` reads `B`), unless that lower case is a look-alike of its own (`ν` is
 * v's, though `Ν` is N's). A text and a pattern in lower case fold alike (labels.ts).
 */
const lowerCaseLookAlikes = Object.entries(lookAlikes).flatMap(([from, to]): Array<[string, string]> => {
  const lower = from.toLowerCase();
  return from === lower || !(lower in lookAlikes) ? [[lower, to.toLowerCase()]] : [];
});
const lowerCaseUnits = unitTable(lowerCaseLookAlikes);
const lowerCaseLookAlike = new RegExp(`[${lowerCaseLookAlikes.map(([from]) => from).join('')}]`, 'u');

function unitTable(pairs: Array<[string, string]>): Uint16Array {
  const table = new Uint16Array(0x10000);
  for (let unit = 0; unit < table.length; unit++) table[unit] = unit;
  for (const [from, to] of pairs) table[from.charCodeAt(0)] = to.charCodeAt(0);
  return table;
}

/** Units turned back into a string at a time (a call's arguments are bounded). */
const chunk = 8192;

/**
 * The text with its look-alike letters folded: through a table of code units, then back to a string
 * in chunks (ten times as fast on a page of Cyrillic as building it letter by letter).
 */
function folded(text: string, units = foldedUnits, test = lookAlike): string {
  if (!test.test(text)) return text;
  const out = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = units[text.charCodeAt(i)]!;
  let string = '';
  for (let start = 0; start < out.length; start += chunk)
    string += String.fromCharCode.apply(null, out.subarray(start, start + chunk) as unknown as number[]);
  return string;
}

/** The text in lower case, its look-alikes folded as they read in lower case. */
export function lowerCaseFolded(text: string): string {
  return folded(text.toLowerCase(), lowerCaseUnits, lowerCaseLookAlike);
}

/** The HTML entities that write a key's characters, or nothing (numeric ones are decoded by number). */
const namedEntities: Record<string, string> = {
  amp: '&',
  lowbar: '_',
  UnderBar: '_',
  hyphen: '-',
  dash: '-',
  minus: '-',
  period: '.',
  sol: '/',
  plus: '+',
  equals: '=',
  colon: ':',
  nbsp: ' ',
  shy: '\u00ad',
  zwj: '\u200d',
  zwnj: '\u200c',
  ZeroWidthSpace: '\u200b',
  NoBreak: '\u2060',
  lrm: '\u200e',
  rlm: '\u200f',
};
const entity = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z]{2,14}));?/g;
const percentEncoded = /(?:%[0-9A-Fa-f]{2})+/g;

function decodeEntities(text: string): string {
  return text.replace(entity, (whole, decimal?: string, hex?: string, name?: string) => {
    if (name !== undefined) return namedEntities[name] ?? whole;
    const code = decimal !== undefined ? Number(decimal) : parseInt(hex!, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** %XX runs as the UTF-8 they encode (a byte that is not, as U+FFFD). */
function decodePercent(text: string): string {
  return text.replace(percentEncoded, (run) => Buffer.from(run.replaceAll('%', ''), 'hex').toString('utf8'));
}

/** Nothing to take off: printable ASCII and line breaks, with no `%` or `&` to decode. */
const plain = /^[\t\n\r\x20-\x24\x27-\x7e]*$/;

/** Layers taken off at most: `%26%2395%3B` is `&#95;` once, `_` twice. */
const rounds = 3;

/**
 * The text as a reader sees it and a copy gives it: entities and percent-encoding decoded, NFKC
 * (fullwidth and mathematical letters become ASCII), invisible characters removed, look-alike
 * letters folded, again while a pass changes something. The same text when there is nothing to take off.
 */
export function revealed(text: string): string {
  if (plain.test(text)) return text;
  // Secret scanning and the labels read the same text one after the other: it is revealed once.
  if (text === lastRevealed.text) return lastRevealed.shown;
  const shown = revealedAnew(text);
  lastRevealed = { text, shown };
  return shown;
}

/** The last text revealed, and what it revealed. */
let lastRevealed = { text: '', shown: '' };

function revealedAnew(text: string): string {
  let current = text;
  for (let round = 0; round < rounds; round++) {
    const next = folded(decodePercent(decodeEntities(current)).normalize('NFKC').replace(invisible, ''));
    if (next === current) break;
    current = next;
  }
  return current;
}
