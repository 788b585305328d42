// Compressed answers (openapi.yaml, "Cross-origin use and compression"): pages and API answers over
// 1 KiB go out in `br`, else `gzip`, when the request's Accept-Encoding takes it. @fastify/compress
// does it for every route registered after it (its hook runs last, after conditional GETs: a 304
// has no body to compress), in memory below its own size bound and streamed above it. The page
// cache keeps each page's compressed forms beside its bytes (made once, when the page is kept), so
// a hit never compresses; the same settings and the same choice of encoding serve both.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import negotiate from '@fastify/accept-negotiator';
import fastifyCompress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** The encodings we answer in, best first. */
export const encodings = ['br', 'gzip'] as const;
export type Encoding = (typeof encodings)[number];
/** Answers smaller than this go out as they are: compressing them saves less than it costs. */
export const compressionThreshold = 1024;
/** Brotli's quality 4: most of its gain for a fraction of the time of its default 11. */
const brotliOptions = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

/** `*` (no preference) and `x-gzip` read as gzip, as @fastify/compress reads them. */
const gzipAliases = /\*|x-gzip/g;

/** The encoding to answer a request in, as @fastify/compress would choose it; undefined: as they are. */
export function encodingFor(acceptEncoding: string | string[] | undefined): Encoding | undefined {
  if (typeof acceptEncoding !== 'string' || acceptEncoding === '') return undefined;
  const chosen = negotiate(acceptEncoding.toLowerCase().replace(gzipAliases, 'gzip'), [...encodings]);
  return chosen ?? undefined;
}

/** A body's compressed forms, or none when it is too small to be sent compressed. */
export function compressedForms(body: Buffer): Partial<Record<Encoding, Buffer>> {
  if (body.length < compressionThreshold) return {};
  return { br: brotliCompressSync(body, brotliOptions), gzip: gzipSync(body) };
}

export default fp(
  async function compression(app: FastifyInstance) {
    await app.register(fastifyCompress, {
      encodings: [...encodings],
      threshold: compressionThreshold,
      brotliOptions,
    });
  },
  { name: 'compression' },
);
