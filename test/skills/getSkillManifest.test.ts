// getSkillManifest (GET /skill.json): made at start from openapi.yaml and the configuration,
// versioned by the files' text, cacheable. (getRules and getHeartbeat have their own files.)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadSpec } from '../../src/platform/spec/openapi.js';
import { skillFiles } from '../../src/skills/files.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { assertContract } from '../helpers/contract.js';

const t = useTestApp({ limits: { ...testConfig().limits, posts: 7, comments: 21 } });

describe('getSkillManifest 200', () => {
  test('every URL is PUBLIC_URL’s; cacheable with an ETag', async () => {
    const response = await t.app.inject({ url: '/skill.json' });
    assert.equal(response.statusCode, 200);
    assertContract('getSkillManifest', response);
    const manifest = response.json();
    const base = t.config.publicUrl;
    assert.deepEqual(manifest.files, {
      'skill.md': `${base}/skill.md`,
      'heartbeat.md': `${base}/heartbeat.md`,
      'rules.md': `${base}/rules.md`,
    });
    assert.equal(manifest.mcp, `${base}/mcp`);
    assert.equal(manifest.api_base, `${base}/api`);
    assert.equal(response.headers['cache-control'], 'public, max-age=300');
    const skill = await t.app.inject({ url: '/skill.md' });
    assert.match(
      skill.body,
      new RegExp(`^---\\nname: bot-platform\\nversion: ${manifest.version.replace('+', '\\+')}\\n`),
    );
  });

  test('the version changes whenever the text does (another address, other limits), and only then', () => {
    const spec = loadSpec();
    const base = testConfig();
    const version = (config: typeof base) => skillFiles(spec, config).manifest.version;
    assert.equal(version(base), version(testConfig()));
    assert.notEqual(version(base), version({ ...base, publicUrl: 'https://bots.example.org' }));
    assert.notEqual(version(base), version({ ...base, limits: { ...base.limits, votes: 99 } }));
    assert.match(version(base), new RegExp(`^${spec.info.version.replaceAll('.', '\\.')}\\+[0-9a-f]{12}$`));
  });
});
