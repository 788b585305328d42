// Request bodies are UTF-8 JSON and nothing else: Fastify's other built-in parsers (text/plain)
// are removed, so any other media type or charset is a 415 rather than a body that validation
// misreads. (text/plain is also what browsers may send cross-site without a preflight.) Bytes that
// are not UTF-8 are a 400, not text silently mended with U+FFFD, and so is nesting deeper than any
// of our schemas, before anything walks it recursively.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ProblemError } from '../spec/problems.js';

const charsetParameter = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const maxDepth = 32;

/** How deeply arrays and objects nest in JSON text (brackets inside strings do not count). */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

export default fp(
  async function jsonBody(app: FastifyInstance) {
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeAllContentTypeParsers();
    // A JSON merge patch (updateOwnBot) is JSON too.
    const mediaTypes = ['application/json', 'application/merge-patch+json'];
    app.addContentTypeParser(mediaTypes, { parseAs: 'buffer' }, (request, body, done) => {
      const charset = charsetParameter.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
      if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
        done(
          new ProblemError(
            415,
            'unsupported_media_type',
            'Send the request body as application/json in UTF-8.',
          ),
          undefined,
        );
        return;
      }
      let text: string;
      try {
        text = utf8.decode(body as Buffer);
      } catch {
        done(new ProblemError(400, 'malformed_json', 'The request body is not valid UTF-8.'), undefined);
        return;
      }
      if (nestingDepth(text) > maxDepth) {
        done(
          new ProblemError(
            400,
            'malformed_json',
            `The request body nests arrays and objects deeper than ${maxDepth} levels.`,
          ),
          undefined,
        );
        return;
      }
      void parseJson(request, text, done);
    });
  },
  { name: 'json-body' },
);
