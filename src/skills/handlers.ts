// Handlers of getSkill, getHeartbeat, getRules and getSkillManifest: the skill files made once at
// start (./files.ts), served from memory with their ETags; any cache may keep them five minutes.
import type { Config } from '../config.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { loadSpec } from '../platform/spec/openapi.js';
import { skillFiles, type SkillFile } from './files.js';

const caching = 'public, max-age=300';

export function skillHandlers({ config }: { config: Config }) {
  const files = skillFiles(loadSpec(), config);
  const markdown = ({ text, etag }: SkillFile) => ({
    status: 200 as const,
    body: text,
    headers: { 'content-type': 'text/markdown; charset=utf-8', 'cache-control': caching, etag },
  });
  return {
    getSkill: async () => markdown(files.skill),
    getHeartbeat: async () => markdown(files.heartbeat),
    getRules: async () => markdown(files.rules),
    getSkillManifest: async () => ({
      status: 200,
      body: files.manifest,
      headers: { 'cache-control': caching, etag: files.manifestEtag },
    }),
  } satisfies Pick<HandlerMap, 'getSkill' | 'getHeartbeat' | 'getRules' | 'getSkillManifest'>;
}
