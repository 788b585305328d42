// Handlers of createIdentityToken, verifyIdentityToken, getIdentityKeys and getOpenIdConfiguration.
// The work is in ./service.ts; the keys are held by ./key-ring.ts, one ring per app (src/areas.ts).
import type { Config } from '../config.js';
import type { Clock } from '../platform/db/clock.js';
import type { Db } from '../platform/db/schema.js';
import { pendingAdmission } from '../platform/admission/request-context.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import type { PublicJsonWebKey } from '../platform/spec/schemas.js';
import type { KeyRing } from './key-ring.js';
import { createIdentityToken, verifyIdentityToken } from './service.js';

/** What any cache may keep for five minutes (the spec's PublicCacheControl). */
const publicCaching = 'public, max-age=300';

export function identityHandlers({
  db,
  config,
  clock,
  keys,
}: {
  db: Db;
  config: Config;
  clock: Clock | undefined;
  /** The app's one key ring (it signs skill.json too). */
  keys: KeyRing;
}) {
  const context = { db, config, clock, keys };
  const discovery = {
    issuer: config.publicUrl,
    jwks_uri: `${config.publicUrl}/.well-known/jwks.json`,
    id_token_signing_alg_values_supported: ['ES256'],
    claims_supported: [
      'iss',
      'sub',
      'aud',
      'iat',
      'exp',
      'jti',
      'name',
      'type',
      'verified',
      'karma',
      'creator',
      'profile_url',
    ],
    service_documentation: `${config.publicUrl}/docs`,
  };
  return {
    async createIdentityToken({ body, request }) {
      return {
        status: 201,
        body: await createIdentityToken(context, pendingAdmission(request), body.audience),
      };
    },

    async verifyIdentityToken({ body }) {
      return { status: 200, body: await verifyIdentityToken(context, body.token, body.audience) };
    },

    async getIdentityKeys() {
      const { keys, etag } = await context.keys.publishedKeys(clock?.() ?? new Date());
      // Tagged once per key set, not hashed again for every request (conditional-get.ts keeps a set tag).
      return {
        status: 200,
        body: { keys: keys as PublicJsonWebKey[] },
        headers: { 'cache-control': publicCaching, etag },
      };
    },

    async getOpenIdConfiguration() {
      return { status: 200, body: discovery, headers: { 'cache-control': publicCaching } };
    },
  } satisfies Pick<
    HandlerMap,
    'createIdentityToken' | 'verifyIdentityToken' | 'getIdentityKeys' | 'getOpenIdConfiguration'
  >;
}
