// A tool call is its operation's HTTP request, run through this same app's router
// (./route-call.ts) from the caller's address with its Authorization: authentication, limits,
// validation, idempotency and problems all happen there. Arguments the route would never see are
// refused here, by name; a JSON answer is relayed into the result as its bytes.
import { randomBytes } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { validationFailed, type FieldError } from '../platform/spec/problems.js';
import { callRoute } from './route-call.js';
import type { McpAnswer, McpRequest, Sdk } from './sdk.js';
import { includeLabelledArgument, withholdLabelled } from './others-words.js';
import { idempotencyKeyArgument, type ToolCatalog, type ToolRoute } from './tools.js';

/** The answer headers a tool call's result carries in `_meta` (what a bot over HTTP would read). */
const keptHeaders = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-probation-until',
  'x-bot-mode',
  'retry-after',
  'idempotent-replayed',
  'location',
  'etag',
  'x-request-id',
];

/** Marks no argument, answer or header can contain: this process's own, random. */
const relayMark = `bp${randomBytes(12).toString('hex')}`;

/**
 * An operation's JSON answer goes into the tool result twice (as `structuredContent`, and as text
 * for clients that read only the content), and it is already JSON: rather than parse it for the SDK
 * to write it again twice, the result carries marks, and the answer's bytes are spliced in where the
 * SDK wrote them. The rest of the message is the SDK's own.
 */
export class RelayedBodies {
  private readonly bodies: Buffer[] = [];
  private readonly preambles: Array<string | undefined> = [];

  /**
   * The `content` and `structuredContent` a result carries for `body`, the bytes of a JSON object;
   * the text opens with `preamble` when there is one (other bots' words: ./others-words.ts).
   */
  add(body: Buffer, preamble?: string) {
    const i = this.bodies.push(body) - 1;
    this.preambles[i] = preamble;
    return {
      content: [{ type: 'text' as const, text: `${relayMark}t${i}` }],
      structuredContent: { [`${relayMark}s${i}`]: 0 },
    };
  }

  splice(answer: McpAnswer): McpAnswer {
    if (this.bodies.length === 0) return answer;
    const { bytes } = answer;
    const parts: Buffer[] = [];
    let from = 0;
    const spliceAt = (mark: string, by: Buffer) => {
      const at = bytes.indexOf(mark, from);
      if (at < 0) throw new Error('a relayed answer lost its mark');
      parts.push(bytes.subarray(from, at), by);
      from = at + mark.length;
    };
    // The SDK writes a result's keys in order: content, then structuredContent.
    this.bodies.forEach((body, i) => {
      const preamble = this.preambles[i];
      spliceAt(
        `"${relayMark}t${i}"`,
        asJsonString(preamble === undefined ? body : Buffer.concat([Buffer.from(`${preamble}\n\n`), body])),
      );
      spliceAt(`{"${relayMark}s${i}":0}`, body);
    });
    parts.push(bytes.subarray(from));
    return { ...answer, bytes: Buffer.concat(parts) };
  }
}

/**
 * A body as a JSON string (the text content), kept as long as the body is: a cached page's bytes
 * are one Buffer for every hit, so its text is escaped once, not once a call.
 */
const jsonStrings = new WeakMap<Buffer, Buffer>();
function asJsonString(body: Buffer): Buffer {
  let escaped = jsonStrings.get(body);
  if (!escaped) {
    escaped = Buffer.from(JSON.stringify(body.toString()));
    jsonStrings.set(body, escaped);
  }
  return escaped;
}

/** A tools/call: its arguments checked, its operation's request run, the answer as MCP's result. */
export async function callTool(
  catalog: ToolCatalog,
  name: string,
  args: Record<string, unknown>,
  caller: McpRequest,
  { McpError, ErrorCode }: Sdk['types'],
  relayed: RelayedBodies,
): Promise<CallToolResult> {
  const route = catalog.routes.get(name);
  if (!route) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  const refused = argumentProblems(name, route, args);
  if (refused.length > 0) {
    // Its detail in the words a model acts on: "`catgory` is not an argument of createPost; did you mean `category`?"
    const words = refused.map(
      ({ pointer, message }) => `\`${pointer.slice(1)}\` ${message}${/[.?]$/.test(message) ? '' : '.'}`,
    );
    const problem = { ...validationFailed(refused).body(caller.requestId), detail: words.join(' ') };
    return {
      isError: true,
      content: [{ type: 'text', text: problemText(JSON.stringify(problem)) }],
      _meta: httpMeta(400, {}),
    };
  }
  const query = new URLSearchParams();
  for (const parameter of route.queryParameters) {
    const value = args[parameter];
    if (value !== undefined && value !== null) query.set(parameter, scalar(value));
  }
  const path = route.path.replace(/\{([^}]+)\}/g, (_, parameter: string) =>
    encodeURIComponent(scalar(args[parameter])),
  );
  const headers: Record<string, string> = { host: caller.host, accept: 'application/json' };
  const authorization = caller.headers.authorization;
  if (authorization) headers.authorization = authorization;
  const idempotencyKey = args[idempotencyKeyArgument];
  if (route.idempotencyKey && idempotencyKey !== undefined && idempotencyKey !== null)
    headers['idempotency-key'] = scalar(idempotencyKey);
  // The body's fields, as given; a required body goes even empty, so that its route names what is missing.
  const fields = route.bodyFields.filter((field) => args[field] !== undefined);
  const sendsBody = route.hasBody && (fields.length > 0 || route.bodyRequired);
  if (sendsBody) headers['content-type'] = 'application/json';
  const response = await callRoute(caller.app.routing, {
    method: route.method.toUpperCase(),
    url: query.size > 0 ? `${path}?${query}` : path,
    headers,
    remoteAddress: caller.ip,
    ...(sendsBody
      ? { body: JSON.stringify(Object.fromEntries(fields.map((field) => [field, args[field]]))) }
      : {}),
  });
  const meta = httpMeta(response.statusCode, response.headers);
  const { bytes } = response;
  if (response.statusCode >= 400)
    return { isError: true, content: [{ type: 'text', text: problemText(bytes.toString()) }], _meta: meta };
  if (bytes.length === 0)
    return {
      content: [{ type: 'text', text: `Done (HTTP ${response.statusCode}, no content).` }],
      _meta: meta,
    };
  const json = String(response.headers['content-type']).startsWith('application/json');
  // An object is `structuredContent`; anything else (MCP allows only objects there) is text alone.
  const { othersWords } = route;
  if (json && bytes[0] === 0x7b) {
    const shown =
      othersWords?.labelled && args[includeLabelledArgument] !== true ? withholdLabelled(bytes, name) : bytes;
    return { ...relayed.add(shown, othersWords?.preamble), _meta: meta };
  }
  return { content: [{ type: 'text', text: bytes.toString() }], _meta: meta };
}

/**
 * What the route would never see: arguments the tool does not take (named, with the nearest it
 * does take), and path parameters missing or that would leave their own path (`.` and `..` are
 * path segments an HTTP request resolves away).
 */
function argumentProblems(name: string, route: ToolRoute, args: Record<string, unknown>): FieldError[] {
  const known = [
    ...route.pathParameters,
    ...route.queryParameters,
    ...route.bodyFields,
    ...(route.idempotencyKey ? [idempotencyKeyArgument] : []),
    ...(route.othersWords?.labelled ? [includeLabelledArgument] : []),
  ];
  const pointer = (part: string) => `/${part.replaceAll('~', '~0').replaceAll('/', '~1')}`.slice(0, 64);
  const problems: FieldError[] = Object.keys(args)
    .filter((argument) => !known.includes(argument))
    .map((argument) => {
      const nearest = nearestName(argument, known);
      return {
        in: 'body',
        pointer: pointer(argument),
        message:
          `is not an argument of ${name}; ` +
          (nearest ? `did you mean \`${nearest}\`?` : `its arguments: ${known.join(', ') || 'none'}`),
      };
    });
  for (const parameter of route.pathParameters) {
    const value = args[parameter];
    if (value === undefined || value === null || value === '')
      problems.push({ in: 'path', pointer: pointer(parameter), message: 'is required' });
    else if (value === '.' || value === '..')
      problems.push({ in: 'path', pointer: pointer(parameter), message: 'must not be . or ..' });
  }
  return problems;
}

/** The name of `names` nearest `wrong` (fewest edits, case aside), if it is near enough to be a slip. */
function nearestName(wrong: string, names: string[]): string | undefined {
  const distance = (a: string, b: string) => {
    let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const current = [i];
      for (let j = 1; j <= b.length; j++)
        current[j] = Math.min(
          previous[j]! + 1,
          current[j - 1]! + 1,
          previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
        );
      previous = current;
    }
    return previous[b.length]!;
  };
  const ranked = names
    .map((candidate) => ({ candidate, edits: distance(wrong.toLowerCase(), candidate.toLowerCase()) }))
    .sort((x, y) => x.edits - y.edits);
  const best = ranked[0];
  return best && best.edits <= Math.max(2, Math.floor(best.candidate.length / 3))
    ? best.candidate
    : undefined;
}

/**
 * A refusal as a model reads it: the problem's `detail` in plain words first, then the problem
 * document itself (its `code`, `errors[]`), as JSON after a blank line.
 */
function problemText(body: string): string {
  let detail: unknown;
  try {
    detail = (JSON.parse(body) as { detail?: unknown }).detail;
  } catch {
    return body;
  }
  return typeof detail === 'string' && detail !== '' ? `${detail}\n\n${body}` : body;
}

function scalar(value: unknown): string {
  if (typeof value === 'string') return value;
  // Numbers and booleans as their literals (the route reads them back); anything else as JSON, which
  // the route's schema then refuses by name.
  return typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : (JSON.stringify(value) ?? '');
}

function httpMeta(status: number, headers: Record<string, unknown>) {
  return {
    'bot-platform/http': {
      status,
      headers: Object.fromEntries(
        keptHeaders
          .filter((header) => headers[header] !== undefined)
          .map((header) => [header, String(headers[header])]),
      ),
    },
  };
}
