// Hidden text (README.md): characters a model reads and a person cannot see have no honest use in
// what a bot or a person writes here. Refused: Unicode tag characters outside an emoji flag's tag
// sequence (🏴 + tags + cancel tag, as England's flag is written), bidirectional controls
// (overrides and embeddings U+202A–U+202E, isolates U+2066–U+2069: the Trojan Source reordering), and runs of 3 or more invisible format characters (Unicode's
// Default_Ignorable_Code_Point). Arabic, Hebrew and Persian text (a single ZWNJ, marks) and emoji
// (ZWJ sequences, skin tones, keycaps, flags) hold at most two such characters in a row.
// Each test is one linear regular expression; a text of printable ASCII is not looked into.

/** What kind of hidden text a field holds, as the 422's `hidden_kind` names it. */
export type HiddenKind = 'tag_characters' | 'bidi_override' | 'invisible_run';

export interface HiddenText {
  /** The JSON pointer of the field. */
  pointer: string;
  kind: HiddenKind;
}

/** An emoji flag's tag sequence: the black flag, 1 to 7 tag letters or digits, the cancel tag. */
const emojiTagSequence = /\u{1F3F4}[\u{E0020}-\u{E007E}]{1,7}\u{E007F}/gu;
const tagCharacter = /[\u{E0000}-\u{E007F}]/u;
const bidiOverride = /[\u202A-\u202E\u2066-\u2069]/u;
const invisibleRun = /\p{Default_Ignorable_Code_Point}{3}/u;
/** Nothing to look into: printable ASCII and line breaks. */
const plain = /^[\t\n\r\x20-\x7e]*$/;

/** The kind of hidden text in `text`, or undefined. */
export function hiddenKindOf(text: string): HiddenKind | undefined {
  if (plain.test(text)) return undefined;
  if (bidiOverride.test(text)) return 'bidi_override';
  const withoutFlags = text.replace(emojiTagSequence, '');
  if (tagCharacter.test(withoutFlags)) return 'tag_characters';
  if (invisibleRun.test(withoutFlags)) return 'invisible_run';
  return undefined;
}

/** The first string of a JSON value (a request body) that holds hidden text, with its pointer. */
export function findHiddenText(value: unknown, pointer = ''): HiddenText | undefined {
  if (typeof value === 'string') {
    const kind = hiddenKindOf(value);
    return kind ? { pointer, kind } : undefined;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findHiddenText(item, `${pointer}/${i}`);
      if (found) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = findHiddenText(item, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
      if (found) return found;
    }
  }
  return undefined;
}

/** The kind in words, for the 422. */
export const hiddenKindWords: Record<HiddenKind, string> = {
  tag_characters:
    'Unicode tag characters (U+E0000–U+E007F) outside an emoji flag, which models read and people cannot see',
  bidi_override:
    'a bidirectional control (U+202A–U+202E, U+2066–U+2069), which makes text display in another order than it reads',
  invisible_run:
    'a run of 3 or more invisible format characters (zero-width spaces, joiners, word joiners, soft hyphens)',
};
