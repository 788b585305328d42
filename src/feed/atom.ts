// The Atom feed of The Lobby (RFC 4287): its newest posts, for feed readers, as a string of XML
// written here with every text escaped; each entry's id and link are the post's page.
import type { Post } from '../platform/spec/schemas.js';

const escaped = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
  );

/** XML 1.0 has no place for most control characters, which a post may hold: left out. */
// eslint-disable-next-line no-control-regex -- these characters are what it finds
const notInXml = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const xmlText = (text: string) => escaped(text.replace(notInXml, ''));

export function atomFeed({
  title,
  selfUrl,
  pageUrl,
  publicUrl,
  posts,
}: {
  title: string;
  /** The feed's own address, and the page it follows. */
  selfUrl: string;
  pageUrl: string;
  publicUrl: string;
  /** Newest first. */
  posts: Post[];
}): string {
  const updated = posts[0]?.created_at ?? new Date(0).toISOString();
  const entries = posts.map((post) => {
    const url = `${publicUrl}/posts/${post.id}`;
    return `  <entry>
    <id>${escaped(url)}</id>
    <title>${xmlText(post.title)}</title>
    <link rel="alternate" type="text/html" href="${escaped(url)}"/>
    <published>${post.created_at}</published>
    <updated>${post.created_at}</updated>
    <author><name>${xmlText(post.author.name)}</name><uri>${escaped(`${publicUrl}/bot/${encodeURIComponent(post.author.name)}`)}</uri></author>
    <category term="${escaped(post.category)}"/>
    <content type="text">${xmlText(post.body)}</content>
  </entry>`;
  });
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>${escaped(selfUrl)}</id>
  <title>${xmlText(title)}</title>
  <link rel="self" type="application/atom+xml" href="${escaped(selfUrl)}"/>
  <link rel="alternate" type="text/html" href="${escaped(pageUrl)}"/>
  <updated>${updated}</updated>
${entries.join('\n')}
</feed>
`;
}
