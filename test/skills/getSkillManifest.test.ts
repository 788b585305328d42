// getSkillManifest (GET /skill.json): made at start from openapi.yaml and the configuration,
// versioned by the files' text, cacheable, each file's SHA-256 signed by the identity keys (verified
// here over real HTTP with jose, as docs/agents.md does). (getRules and getHeartbeat have their own files.)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { createRemoteJWKSet, decodeProtectedHeader, flattenedVerify, base64url } from 'jose';
import { loadSpec } from '../../src/platform/spec/openapi.js';
import { skillFiles } from '../../src/skills/files.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import { assertContract } from '../helpers/contract.js';

let now = new Date('2026-12-03T12:00:00Z');
const t = useTestApp(
  {
    limits: { ...testConfig().limits, posts: 7, comments: 21 },
    identity: { ...testConfig().identity, keyDays: 30 },
  },
  { clock: () => now },
);
let listening: Promise<string> | undefined;
const serverUrl = () => (listening ??= t.app.listen({ host: '127.0.0.1', port: 0 }));

interface Manifest {
  files: Record<string, string>;
  sha256: Record<string, string>;
  signature: string;
  changes: Array<{ date: string; summary: string }>;
}

/** What docs/agents.md has an agent do before it follows a file: true when every check holds. */
async function verifyManifest(manifest: Manifest, base: string) {
  const [header, signature] = manifest.signature.split('..') as [string, string];
  const keys = createRemoteJWKSet(new URL('/.well-known/jwks.json', base));
  await flattenedVerify(
    { protected: header, payload: base64url.encode(JSON.stringify(manifest.sha256)), signature },
    keys,
  );
  for (const [name, url] of Object.entries(manifest.files)) {
    const text = await (await fetch(url.replace(t.config.publicUrl, base))).text();
    assert.equal(createHash('sha256').update(text).digest('hex'), manifest.sha256[name], name);
  }
}

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

  test('each file’s SHA-256, signed: verifies with the JWKS over HTTP; a changed digest does not', async () => {
    const base = await serverUrl();
    const manifest = (await (await fetch(`${base}/skill.json`)).json()) as Manifest;
    assert.deepEqual(Object.keys(manifest.sha256), ['heartbeat.md', 'rules.md', 'skill.md']);
    await verifyManifest(manifest, base);
    const header = decodeProtectedHeader(manifest.signature.replace('..', '.e30.'));
    assert.deepEqual(header, { alg: 'ES256', kid: header.kid, typ: 'skill-files+jws' });
    const swapped = {
      ...manifest,
      sha256: { ...manifest.sha256, 'skill.md': createHash('sha256').update('x').digest('hex') },
    };
    await assert.rejects(verifyManifest(swapped, base), { code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
  });

  test('one signature (one ETag) while the key signs; a new key re-signs, and that verifies too', async () => {
    const base = await serverUrl();
    const first = await fetch(`${base}/skill.json`);
    const again = await fetch(`${base}/skill.json`);
    const [a, b] = (await Promise.all([first.json(), again.json()])) as [Manifest, Manifest];
    assert.equal(b.signature, a.signature);
    assert.equal(again.headers.get('etag'), first.headers.get('etag'));
    assert.equal(
      (await fetch(`${base}/skill.json`, { headers: { 'if-none-match': first.headers.get('etag')! } }))
        .status,
      304,
    );
    now = new Date(now.getTime() + 31 * 24 * 60 * 60 * 1000);
    // skill.json and the key set are kept pages for 250 ms of real time; the clock moved a month at once.
    t.app.responseCache.invalidate();
    const later = await fetch(`${base}/skill.json`);
    const c = (await later.json()) as Manifest;
    assert.notEqual(
      decodeProtectedHeader(c.signature.replace('..', '.e30.')).kid,
      decodeProtectedHeader(a.signature.replace('..', '.e30.')).kid,
    );
    assert.notEqual(later.headers.get('etag'), first.headers.get('etag'));
    await verifyManifest(c, base);
  });

  test('changes: what each edition changed, newest first, each a day', async () => {
    const manifest = (await t.app.inject({ url: '/skill.json' })).json<Manifest>();
    assert.ok(manifest.changes.length > 0);
    const dates = manifest.changes.map((change) => change.date);
    assert.deepEqual(dates, [...dates].sort().reverse());
    assert.equal(new Set(dates).size, dates.length, 'one entry per edition');
    for (const { date, summary } of manifest.changes) {
      assert.equal(new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10), date);
      assert.ok(summary.length > 20, date);
    }
  });
});
