// Request bodies are UTF-8 JSON and nothing else: Fastify's other built-in parsers (text/plain)
// are removed, so any other media type or charset is a 415 rather than a body that validation
// misreads. (text/plain is also what browsers may send cross-site without a preflight.)
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ProblemError } from '../problems.js';

const charsetParameter = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

export default fp(
  async function jsonBody(app: FastifyInstance) {
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const charset = charsetParameter.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
      if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
        done(new ProblemError(415, 'unsupported_media_type', 'Send the request body as application/json in UTF-8.'), undefined);
        return;
      }
      parseJson(request, body as string, done);
    });
  },
  { name: 'json-body' },
);
