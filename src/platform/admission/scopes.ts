// A key's scopes: what it may call. Each operation that takes a bot's key names the one scope it
// needs in its security requirement (`bearerAuth: [post]`, OpenAPI 3.1's role names), the route
// carries it (config.scope), and a key without it is refused with 403 `insufficient_scope` before
// anything is counted or written. Two doors, one answer, as for a suspension (./suspension.ts):
// bot_admission(), which every limited write begins with, raises SQLSTATE BP4SC with the scope it
// needed (sql/bot_admission.sql); the bearerAuth hook refuses every other operation.
import type { FastifyRequest } from 'fastify';
import type { OpenApiDocument, Operation } from '../spec/openapi.js';
import { ProblemError } from '../spec/problems.js';
import type { ApiKeyScope } from '../spec/schemas.js';
import { suspendedRefusal } from './suspension.js';
import { readOnlyProblem, readOnlyState } from './modes.js';

export type { ApiKeyScope };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope an operation that takes a bot's key needs; none: any key (rotateOwnKey, callMcp). */
    scope?: ApiKeyScope;
  }
}

/** Every scope, in the spec's order: what the registration key holds. */
export function everyScope(spec: OpenApiDocument): ApiKeyScope[] {
  const schema = spec.components.schemas.ApiKeyScope as { enum?: ApiKeyScope[] } | undefined;
  if (!schema?.enum) throw new Error('openapi.yaml has no ApiKeyScope enum');
  return schema.enum;
}

/**
 * The scope an operation names in its bearerAuth requirement, or undefined where it names none. A
 * requirement naming more than one, or one that is not an ApiKeyScope, is a mistake in the spec.
 */
export function operationScope(spec: OpenApiDocument, op: Operation): ApiKeyScope | undefined {
  const requirements = op.operation.security ?? spec.security ?? [];
  const roles = requirements.flatMap((requirement) => requirement.bearerAuth ?? []);
  if (roles.length > 1) throw new Error(`${op.operationId}: a bot's operation needs one scope at most`);
  const [scope] = roles;
  if (scope !== undefined && !everyScope(spec).includes(scope as ApiKeyScope))
    throw new Error(`${op.operationId}: ${scope} is not an ApiKeyScope`);
  return scope as ApiKeyScope | undefined;
}

export function insufficientScope(
  operationId: string,
  needed: ApiKeyScope,
  held: readonly ApiKeyScope[],
): ProblemError {
  return new ProblemError(
    403,
    'insufficient_scope',
    `This key may not call ${operationId}: it needs the scope ${needed}, and the key has ${held.join(', ')}. ` +
      `Call it with a key that has ${needed} (createApiKey issues one).`,
    {
      extensions: { scope: needed, scopes: held },
      // RFC 6750 section 3.1: the scope the resource needs, in the challenge.
      headers: {
        'www-authenticate': `Bearer realm="bot-platform", error="insufficient_scope", scope="${needed}"`,
      },
    },
  );
}

/** The bearerAuth hook's part: the calling key's scopes against the operation's. */
export function refuseOutOfScope(request: FastifyRequest, held: readonly ApiKeyScope[]): void {
  const needed = request.routeOptions.config.scope;
  if (needed && !held.includes(needed))
    throw insufficientScope(request.routeOptions.config.operationId ?? 'this operation', needed, held);
}

/** The SQLSTATE bot_admission() raises for a key without the operation's scope. */
const outOfScopeState = 'BP4SC';

/**
 * What bot_admission() refused a request with, as its 403: a key outside its scopes, a read-only
 * bot (./modes.ts), or a suspended one (./suspension.ts); undefined for any other error.
 */
export function admissionRefusal(error: unknown, request: FastifyRequest): ProblemError | undefined {
  const { code, detail } = (error ?? {}) as { code?: unknown; detail?: unknown };
  if (code === outOfScopeState && typeof detail === 'string') {
    const raised = JSON.parse(detail) as { scope: ApiKeyScope; scopes: ApiKeyScope[] };
    return insufficientScope(
      request.routeOptions.config.operationId ?? 'this operation',
      raised.scope,
      raised.scopes,
    );
  }
  if (code === readOnlyState) return readOnlyProblem();
  return suspendedRefusal(error);
}
