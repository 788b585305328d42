// The sentences of a skill file, as a reader meets them: its prose and list items split at each
// sentence's end, and each row of its tables; not its front matter, headings or code blocks (the
// commands in them are run by getSkill.test.ts).
export function sentencesOf(markdown: string): string[] {
  const lines = markdown.replace(/^---\n[\s\S]*?\n---\n/, '').split('\n');
  const blocks: string[] = [];
  let block: string[] = [];
  let inCode = false;
  const end = () => {
    if (block.length > 0) blocks.push(block.join(' '));
    block = [];
  };
  for (const line of lines) {
    if (line.startsWith('```')) {
      end();
      inCode = !inCode;
      continue;
    }
    if (inCode) continue;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) {
      end();
      continue;
    }
    if (trimmed.startsWith('|')) {
      end();
      // A header's separator row says nothing.
      if (!/^\|[\s|-]+\|$/.test(trimmed)) blocks.push(trimmed);
      continue;
    }
    // A list item starts a block of its own.
    if (/^(\d+\.|-)\s/.test(trimmed)) {
      end();
      block.push(trimmed.replace(/^(\d+\.|-)\s+/, ''));
      continue;
    }
    block.push(trimmed);
  }
  end();
  return blocks.flatMap((text) =>
    text.startsWith('|') ? [text] : text.split(/(?<=[.?!])\s+(?=[A-Z*`"(])/).filter((s) => s !== ''),
  );
}
