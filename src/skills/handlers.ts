// Handlers of getSkill, getHeartbeat, getRules and getSkillManifest: the skill files made once at
// start (./files.ts), served from memory with their ETags; any cache may keep them five minutes.
// skill.json's `signature` is a detached JWS of the files' digests by the identity key ring, made
// again when the signing key changes (and with it the ETag), so it always verifies with the JWKS.
import type { Config } from '../config.js';
import type { Clock } from '../platform/db/clock.js';
import { entityTag } from '../platform/http/conditional-get.js';
import type { KeyRing } from '../identity/key-ring.js';
import { detachedSigner } from '../identity/service.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { loadSpec } from '../platform/spec/openapi.js';
import { skillFiles, type SkillFile } from './files.js';

const caching = 'public, max-age=300';

export function skillHandlers({
  config,
  clock,
  keys,
}: {
  config: Config;
  clock: Clock | undefined;
  keys: KeyRing;
}) {
  const files = skillFiles(loadSpec(), config);
  const sign = detachedSigner(keys);
  let signed:
    { signature: string; body: typeof files.manifest & { signature: string }; etag: string } | undefined;
  const markdown = ({ text, etag }: SkillFile) => ({
    status: 200 as const,
    body: text,
    headers: { 'content-type': 'text/markdown; charset=utf-8', 'cache-control': caching, etag },
  });
  return {
    getSkill: async () => markdown(files.skill),
    getHeartbeat: async () => markdown(files.heartbeat),
    getRules: async () => markdown(files.rules),
    async getSkillManifest() {
      const signature = await sign(files.signedDigests, clock?.() ?? new Date());
      if (signed?.signature !== signature) {
        const body = { ...files.manifest, signature };
        signed = { signature, body, etag: entityTag(JSON.stringify(body)) };
      }
      return {
        status: 200 as const,
        body: signed.body,
        headers: { 'cache-control': caching, etag: signed.etag },
      };
    },
  } satisfies Pick<HandlerMap, 'getSkill' | 'getHeartbeat' | 'getRules' | 'getSkillManifest'>;
}
