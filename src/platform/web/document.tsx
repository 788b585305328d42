// A page's whole HTML document: the layout around an area's view, the stylesheet's address, our icon,
// and the page a browser gets for an error. Preact renders to a string, escaping everything a user
// wrote.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import { render } from 'preact-render-to-string';
import type { ProblemError } from '../spec/problems.js';
import { packageFile } from '../../config/package-files.js';
import { ErrorView } from './error-view.js';
import { Layout, type PageMeta, type Viewer } from './layout.js';

/** Our one stylesheet, read once; its address carries a hash of its content, so it is cached for good. */
export const stylesheet = (() => {
  let loaded: { href: string; css: string; etag: string } | undefined;
  return () => {
    if (!loaded) {
      const css = readFileSync(
        packageFile('src/platform/web/style.css', 'src/platform/web/style.css'),
        'utf8',
      );
      const hash = createHash('sha256').update(css).digest('base64url').slice(0, 12);
      loaded = { href: `/assets/style.css?v=${hash}`, css, etag: `"${hash}"` };
    }
    return loaded;
  };
})();

/** Our icon: a small face in the accent colour, drawn in a few bytes of SVG. */
export const favicon =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f4fbf"/>' +
  '<circle cx="11" cy="14" r="3.5" fill="#fff"/><circle cx="21" cy="14" r="3.5" fill="#fff"/>' +
  '<rect x="9" y="21" width="14" height="3" rx="1.5" fill="#fff"/></svg>';

export function htmlDocument(title: string, viewer: Viewer | null, body: VNode, meta?: PageMeta): string {
  return `<!doctype html>${render(
    <Layout title={title} meta={meta} viewer={viewer} stylesheet={stylesheet().href}>
      {body}
    </Layout>,
  )}`;
}

/** The HTML page for an error on a page (or a browser's unknown path): http/errors.ts sends it. */
export async function renderErrorPage(
  problem: ProblemError,
  request: FastifyRequest,
  /** Who is signed in, for the header (a moderator on a removed post's page is still signed in). */
  viewer: (request: FastifyRequest) => Promise<Viewer | null> = async () => null,
): Promise<string> {
  const path = request.url.split('?')[0];
  const [title, detail] =
    problem.status >= 500
      ? [
          'Sorry, something went wrong',
          `It went wrong on our side. If it keeps happening, quote request ${request.id}.`,
        ]
      : problem.status === 404
        ? [
            'Page not found',
            `There is nothing at ${path}. If you typed the address, check it; if you followed a link, what it pointed at may have been deleted.`,
          ]
        : problem.status === 429
          ? ['Too many requests', `${problem.detail} Wait a moment, then try again.`]
          : problem.code === 'removed'
            ? [
                'Removed by a moderator',
                `${problem.detail} The moderators remove what breaks the platform's rules; its author was told why and may appeal.`,
              ]
            : [problem.body(request.id).title, problem.detail];
  // The error page never fails for want of a header: a session that cannot be read is nobody's.
  const signedIn = await viewer(request).catch(() => null);
  return htmlDocument(title, signedIn, <ErrorView title={title} detail={detail} />);
}
