// The official MCP SDK, loaded once when first needed, and an MCP request and answer as this app
// holds them (./protocol.ts answers one; ./tool-call.ts runs a tool call of it).
import type { ApiKeyScope } from '../platform/spec/schemas.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** The MCP request as this app received it. */
export interface McpRequest {
  headers: IncomingHttpHeaders;
  /** The host the client addressed (its Host, or X-Forwarded-Host from a trusted proxy). */
  host: string;
  /** The caller's address: limits per client IP count against it, not against this server. */
  ip: string;
  requestId: string;
  /** The JSON-RPC message, parsed and checked against JsonRpcMessage. */
  message: unknown;
  /** This app, to run each tool call's operation through its own route. */
  app: Pick<FastifyInstance, 'routing'>;
  /**
   * The scopes of the connection's key (read only when tools/list asks): undefined without a key
   * the server knows, and then every tool is listed (registerBot needs none; the others answer 401).
   */
  scopes: () => Promise<readonly ApiKeyScope[] | undefined>;
}

export interface McpAnswer {
  status: number;
  /** JSON-RPC as the SDK wrote it, in UTF-8, or nothing (202: a notification accepted). */
  bytes: Buffer;
  headers: Record<string, string>;
}

/**
 * The SDK, loaded on the first MCP request rather than at start: it and zod are most of a second's
 * parsing on a slow machine and megabytes of heap, for a server that may never see an agent.
 */
export async function loadSdk() {
  const [{ Server }, { WebStandardStreamableHTTPServerTransport }, { AjvJsonSchemaValidator }, types] =
    await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
      import('@modelcontextprotocol/sdk/validation/ajv'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
  // One validator for every request's Server: each Server would otherwise build an Ajv of its own
  // (most of a call's cost). Ours never validates a thing (tools run through their routes).
  return {
    Server,
    WebStandardStreamableHTTPServerTransport,
    types,
    jsonSchemaValidator: new AjvJsonSchemaValidator(),
  };
}
export type Sdk = Awaited<ReturnType<typeof loadSdk>>;
