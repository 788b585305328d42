// /mcp answers every failure as a JSON-RPC error, never as a problem document, so that MCP clients
// can read it: the transport's own refusals (JsonRpcFailure: a wrong Accept, an unsupported
// protocol version) as the SDK wrote them, and this server's (a body that is not JSON, too large,
// of another media type, or not a JSON-RPC message) worded from the problem it would have been.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { problemFor } from '../platform/http/errors.js';

/** An answer of the MCP transport that is not a success: sent as it is. */
export class JsonRpcFailure extends Error {
  constructor(
    readonly status: number,
    /** The JSON-RPC answer as the SDK wrote it (bytes) or as this server words it (text). */
    readonly body: Buffer | string,
    readonly headers: Record<string, string>,
  ) {
    super(`MCP transport answered ${status}`);
    this.name = 'JsonRpcFailure';
  }
}

const parseError = -32700;
const invalidRequest = -32600;
const internalError = -32603;
/** The SDK's code for what the transport refuses (the HTTP status says which). */
const transportError = -32000;

export async function jsonRpcErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof JsonRpcFailure)
    return reply.code(error.status).headers(error.headers).type('application/json').send(error.body);
  const problem = problemFor(error, request);
  if (problem.code === 'internal') request.log.error({ err: error }, 'request failed');
  const code =
    problem.code === 'malformed_json'
      ? parseError
      : problem.code === 'validation_failed'
        ? invalidRequest
        : problem.status >= 500
          ? internalError
          : transportError;
  return reply
    .code(problem.status)
    .headers(problem.headers)
    .type('application/json')
    .send({
      jsonrpc: '2.0',
      id: null,
      error: { code, message: problem.detail, data: problem.body(request.id) },
    });
}
