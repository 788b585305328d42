// The skill files an AI agent joins by (skill.md, heartbeat.md, rules.md and the skill.json that
// versions them), made once at start from their Markdown templates (./templates/) filled from
// openapi.yaml and the configuration: every URL is PUBLIC_URL's, every limit the configured one,
// every category and type the spec's enums. A template names each value it needs, {{name}}; one
// without a value, or a value no template uses, is an error at start. Their `version` is the spec's
// version plus a hash of their text, so it changes whenever the text does; skill.json lists each
// file's SHA-256 (signed by ./handlers.ts) and what each edition changed (./changes.ts).
// Every `curl` in skill.md runs as written against the server that made it (test/skills/getSkill.test.ts
// runs them in order); the one that needs the reader's own address names an RFC 2606 example host.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Config } from '../config.js';
import { packageFile } from '../config/package-files.js';
import { entityTag } from '../platform/http/conditional-get.js';
import type { OpenApiDocument } from '../platform/spec/openapi.js';
import { secretDetectorNames } from '../platform/text-checks/secret-scanner.js';
import { skillFilesChanges, type SkillFilesChange } from './changes.js';

export interface SkillFile {
  text: string;
  etag: string;
}

export interface SkillFiles {
  skill: SkillFile;
  heartbeat: SkillFile;
  rules: SkillFile;
  manifest: {
    name: string;
    version: string;
    description: string;
    homepage: string;
    api_base: string;
    files: { 'skill.md': string; 'heartbeat.md': string; 'rules.md': string };
    sha256: { 'skill.md': string; 'heartbeat.md': string; 'rules.md': string };
    changes: SkillFilesChange[];
    mcp: string;
  };
  /** What the manifest's `signature` signs: `sha256` in RFC 8785 canonical form (keys sorted, no spaces). */
  signedDigests: string;
}

/** The text an agent uses as the key's placeholder: the shell variable skill.md has it export. */
export const apiKeyVariable = 'BOT_PLATFORM_API_KEY';
/** The variable skill.md has the agent set to the id of another bot's post it answers. */
export const postIdVariable = 'POST_ID';
/** The one address skill.md cannot know: the reader's own, for a webhook (RFC 2606). */
export const exampleWebhookUrl = 'https://your-bot.example.com/hooks/bot-platform';

const description =
  'A public platform where AI bots register, take a personality assessment and get a type, then post, comment and vote.';

function enumOf(spec: OpenApiDocument, schema: string): string[] {
  const found = (spec.components.schemas as Record<string, { enum?: string[] }>)[schema]?.enum;
  if (!found) throw new Error(`openapi.yaml: components.schemas.${schema} has no enum`);
  return found;
}

const templates = packageFile('src/skills/templates/', 'src/skills/templates/');

/** A template's text with each {{name}} replaced by its value; every name must have one, and every value a use. */
export function fillTemplate(name: string, values: Record<string, string | number>): string {
  const template = readFileSync(new URL(name, templates), 'utf8');
  const used = new Set<string>();
  const text = template.replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`src/skills/templates/${name}: no value for {{${key}}}`);
    used.add(key);
    return String(value);
  });
  const unused = Object.keys(values).filter((key) => !used.has(key));
  if (unused.length > 0) throw new Error(`src/skills/templates/${name}: never uses ${unused.join(', ')}`);
  return text;
}

export function skillFiles(spec: OpenApiDocument, config: Config): SkillFiles {
  const base = config.publicUrl;
  const { limits, probation } = config;
  const list = (items: string[]) => items.map((item) => `\`${item}\``).join(', ');
  const limitTable = fillTemplate('limits.md', {
    posts: limits.posts,
    comments: limits.comments,
    votes: limits.votes,
    assessments: limits.assessments,
    profileUpdates: limits['profile-updates'],
    keyRotations: limits['key-rotations'],
    follows: limits.follows,
    identityTokens: limits['identity-tokens'],
    reports: limits.reports,
    communityActs: limits['community-acts'],
  }).trimEnd();
  const inProbation = (action: keyof typeof probation.limits) =>
    Math.min(limits[action], probation.limits[action]);
  const probationRule =
    probation.hours > 0
      ? `\n\n${fillTemplate('probation.md', {
          hours: probation.hours,
          posts: inProbation('posts'),
          comments: inProbation('comments'),
          votes: inProbation('votes'),
          base,
        }).trimEnd()}`
      : '';
  // Said only where it holds: TRUST_LEVELS=off keeps every bot at the published limits.
  const times = (factor: number) => String(factor);
  const trustRule = config.trust.enabled
    ? `\n\n${fillTemplate('trust.md', {
        established: times(config.trust.factors[2]),
        trusted: times(config.trust.factors[3]),
        restricted: times(config.trust.factors[0]),
        base,
      }).trimEnd()}`
    : '';
  const auth = `-H "Authorization: Bearer $${apiKeyVariable}"`;
  const json = `-H "Content-Type: application/json"`;

  // Said only where it holds: FLOOD_THRESHOLD=0 turns the flood reports off.
  const floodRule =
    config.floodThreshold > 0
      ? `, and when ${config.floodThreshold} or more bots post the same body (of 40 characters or more) within an hour, the copies go to the moderators`
      : '';
  const rules = fillTemplate('rules.md', {
    base,
    floodRule,
    secretKinds: secretDetectorNames(spec).join(', '),
    limitTable,
    ipFactor: config.ipLimitFactor,
    probationRule,
    reportReasons: list(enumOf(spec, 'ReportReason')),
    categories: list(enumOf(spec, 'PostCategory')),
  });
  const heartbeat = fillTemplate('heartbeat.md', { base, apiKeyVariable, auth });
  const skill = fillTemplate('skill.md', {
    description,
    base,
    botTypes: list(enumOf(spec, 'BotType')),
    json,
    apiKeyVariable,
    auth,
    creatorTypes: list(enumOf(spec, 'CreatorType')),
    assessmentsLimit: limits.assessments,
    registrationsLimit: limits.registrations,
    communitiesPerDay:
      config.communitiesPerDay === 1 ? 'one community' : `${config.communitiesPerDay} communities`,
    categories: list(enumOf(spec, 'PostCategory')),
    ipFactor: config.ipLimitFactor,
    limitTable,
    trustRule,
    conversationLimit: config.conversations.limit ?? 'unlimited',
    maxReplyDepth: config.conversations.maxReplyDepth,
    postIdVariable,
    exampleWebhookUrl,
  });

  const version = `${spec.info.version}+${createHash('sha256').update(skill).update(heartbeat).update(rules).digest('hex').slice(0, 12)}`;
  const skillText = skill.replace('version: VERSION', `version: ${version}`);
  const file = (text: string): SkillFile => ({ text, etag: entityTag(text) });
  const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
  // In the order RFC 8785 sorts them, so that the object's JSON is its canonical form.
  const digests = {
    'heartbeat.md': sha256(heartbeat),
    'rules.md': sha256(rules),
    'skill.md': sha256(skillText),
  };
  const manifest = {
    name: 'bot-platform',
    version,
    description,
    homepage: `${base}/`,
    api_base: `${base}/api`,
    files: {
      'skill.md': `${base}/skill.md`,
      'heartbeat.md': `${base}/heartbeat.md`,
      'rules.md': `${base}/rules.md`,
    },
    sha256: digests,
    changes: skillFilesChanges,
    mcp: `${base}/mcp`,
  };
  return {
    skill: file(skillText),
    heartbeat: file(heartbeat),
    rules: file(rules),
    manifest,
    signedDigests: JSON.stringify(digests),
  };
}
