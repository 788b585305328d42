// Handler types derived from generated/openapi.d.ts, so the compiler holds every handler to the
// spec: a missing operation, a wrong parameter name, a body or status the spec does not document
// is a type error. Nothing here is written by hand about any particular operation.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { operations, paths } from '../../../generated/openapi.js';

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options';
/** Every operation the paths serve. */
type Served = { [P in keyof paths]: { [M in Method]: paths[P][M] }[Method] }[keyof paths];

/**
 * The operations this server answers: those of openapi.yaml's `paths`, not those of its
 * `webhooks` (what the platform sends to bots' URLs, such as receiveNotification).
 */
export type OperationId = {
  [K in keyof operations]: operations[K] extends Served ? K : never;
}[keyof operations];

type Parameters<K extends OperationId, Where extends 'path' | 'query' | 'header'> = [
  NonNullable<operations[K]['parameters'][Where]>,
] extends [never]
  ? Record<string, never>
  : NonNullable<operations[K]['parameters'][Where]>;

/** A body's type: JSON as the spec's schema says, or the text of a `text/plain` (metrics) or `text/markdown` (skill files) answer. */
type JsonContent<T> = T extends { content: { 'application/json': infer Body } }
  ? Body
  : T extends { content: { 'text/plain': string } } | { content: { 'text/markdown': string } }
    ? string
    : undefined;

export type RequestBody<K extends OperationId> = operations[K] extends { requestBody: infer Body }
  ? JsonContent<Body>
  : undefined;

type Responses<K extends OperationId> = operations[K]['responses'];

/** Statuses a handler returns; every error status is thrown as a ProblemError instead. */
type SuccessStatus = 200 | 201 | 202 | 204 | 302 | 304;

type Success<K extends OperationId> = Extract<keyof Responses<K>, SuccessStatus>;

export type ResponseHeaders = Record<string, string | number>;

export type HandlerResult<K extends OperationId> = {
  [Status in Success<K>]: JsonContent<Responses<K>[Status]> extends undefined
    ? { status: Status; body?: undefined; headers?: ResponseHeaders }
    : { status: Status; body: JsonContent<Responses<K>[Status]>; headers?: ResponseHeaders };
}[Success<K>];

export interface HandlerInput<K extends OperationId> {
  params: Parameters<K, 'path'>;
  query: Parameters<K, 'query'>;
  headers: Parameters<K, 'header'>;
  body: RequestBody<K>;
  request: FastifyRequest;
  reply: FastifyReply;
}

export type Handler<K extends OperationId> = (input: HandlerInput<K>) => Promise<HandlerResult<K>>;

/** One handler per operationId of openapi.yaml: no more, no fewer. */
export type HandlerMap = { [K in OperationId]: Handler<K> };
