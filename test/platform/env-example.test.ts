// .env.example, the operators' list of the environment, against src/config.ts: the variables and
// their defaults come from config's exported environmentSchema, and a sign-in provider's
// OAUTH_<NAME>_* variables (read outside the schema) from what loadConfig makes of them. A variable
// added to or removed from either side, or a default changed on one side only, fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { environmentSchema, loadConfig } from '../../src/config.js';

const lines = readFileSync(new URL('../../.env.example', import.meta.url), 'utf8').split('\n');

/** `NAME=value`, or `# NAME=value` for a default shown commented out. */
const entryPattern = /^(#\s?)?([A-Z][A-Z0-9_]*)=(.*)$/;

interface Entry {
  name: string;
  value: string;
  commented: boolean;
  /** 0-based index into `lines`. */
  index: number;
}

const entries: Entry[] = lines.flatMap((line, index) => {
  const match = entryPattern.exec(line);
  return match ? [{ name: match[2]!, value: match[3]!, commented: match[1] !== undefined, index }] : [];
});

/** The file shows one sign-in provider's variables, for a provider of this name. */
const exampleProvider = 'example';
const providerPrefix = `OAUTH_${exampleProvider.toUpperCase()}_`;
const providerEntries = entries.filter((entry) => entry.name.startsWith(providerPrefix));
const variableEntries = entries.filter((entry) => !entry.name.startsWith(providerPrefix));

const variables = Object.entries(environmentSchema.properties).map(([name, schema]) => ({
  name,
  defaultValue: 'default' in schema ? String(schema.default) : undefined,
}));

describe('.env.example', () => {
  test('lists every variable of src/config.ts once, and no other', () => {
    const listed = variableEntries.map((entry) => entry.name);
    const duplicates = listed.filter((name, at) => listed.indexOf(name) !== at);
    const inSchema = variables.map((variable) => variable.name);
    assert.ok(inSchema.length > 40, `environmentSchema has only ${inSchema.length} variables`);
    assert.deepEqual(
      {
        missingFromEnvExample: inSchema.filter((name) => !listed.includes(name)),
        notReadByConfig: listed.filter((name) => !inSchema.includes(name)),
        duplicates,
      },
      { missingFromEnvExample: [], notReadByConfig: [], duplicates: [] },
    );
  });

  test("gives each variable config's default: `# NAME=default` commented out, or `NAME=` when it has none", () => {
    // A default is commented out so that a copy of the file sets nothing by itself: the Docker
    // image's own HOST, PORT, PGLITE_DIR and NODE_ENV stay in force until a line is uncommented.
    const wrong = variables.flatMap(({ name, defaultValue }) => {
      const entry = variableEntries.find((candidate) => candidate.name === name);
      if (!entry) return [];
      const expected = defaultValue === undefined ? `${name}=` : `# ${name}=${defaultValue}`;
      const actual = `${entry.commented ? '# ' : ''}${name}=${entry.value}`;
      return actual === expected ? [] : [`line ${entry.index + 1}: ${actual}, expected ${expected}`];
    });
    assert.deepEqual(wrong, []);
  });

  test('uncommenting every default changes nothing: config reads the same configuration', () => {
    const everyDefault = Object.fromEntries(
      variableEntries.filter((entry) => entry.commented).map((entry) => [entry.name, entry.value]),
    );
    const withoutSecrets = (config: ReturnType<typeof loadConfig>) => {
      // Without SESSION_SECRET, IDENTITY_KEY_SECRET or DM_MASTER_KEY each load generates a random one.
      const { sessionSecrets: _sessionSecrets, ...humans } = config.humans;
      const { keySecret: _keySecret, ...identity } = config.identity;
      const { masterKeys: _masterKeys, ...messages } = config.messages;
      return { ...config, humans, identity, messages };
    };
    assert.deepEqual(withoutSecrets(loadConfig(everyDefault)), withoutSecrets(loadConfig({})));
  });

  test("shows a sign-in provider's OAUTH_<NAME>_* variables: every one config reads, and only those", () => {
    assert.ok(providerEntries.length > 0, `no ${providerPrefix}* lines`);
    assert.deepEqual(
      providerEntries.filter((entry) => !entry.commented || entry.value !== '').map((entry) => entry.name),
      [],
      'the example provider is commented out, with empty values',
    );
    // Each documented variable gets a value of its own (a URL, valid wherever config wants one):
    // every field of the provider config must come from one of them, and each must reach a field.
    const values = new Map(
      providerEntries.map((entry) => [
        entry.name,
        `https://example.test/${entry.name.slice(providerPrefix.length)}`,
      ]),
    );
    const config = loadConfig({ OAUTH_PROVIDERS: exampleProvider, ...Object.fromEntries(values) });
    assert.equal(config.humans.oauthProviders.length, 1);
    const { name, ...fields } = config.humans.oauthProviders[0]!;
    assert.equal(name, exampleProvider);
    const read = Object.values(fields);
    assert.deepEqual(
      {
        fieldsFromNoListedVariable: Object.entries(fields)
          .filter(([, value]) => !(typeof value === 'string' && [...values.values()].includes(value)))
          .map(([field]) => field),
        listedButNotRead: [...values]
          .filter(([, value]) => !read.includes(value))
          .map(([variable]) => variable),
      },
      { fieldsFromNoListedVariable: [], listedButNotRead: [] },
    );
  });

  test('is comments, blank lines and variables, each variable under a comment line of its meaning', () => {
    const stray = lines
      .map((line, index) => ({ line, index }))
      .filter(({ line }) => line.trim() !== '' && !line.startsWith('#') && !entryPattern.test(line))
      .map(({ line, index }) => `line ${index + 1}: ${line}`);
    assert.deepEqual(stray, []);
    const unexplained = entries
      .filter(({ index }) => {
        const above = lines[index - 1] ?? '';
        return !/^#\s*\S/.test(above) || entryPattern.test(above) || /^#\s*-+\s*$/.test(above);
      })
      .map(({ name, index }) => `line ${index + 1}: ${name}`);
    assert.deepEqual(unexplained, []);
  });
});
