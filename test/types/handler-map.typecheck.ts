// Compile-time proof that handlers are held to openapi.yaml. Nothing here runs: `npm run typecheck`
// compiles it, and fails as soon as one of the @ts-expect-error lines stops being an error.
import type { Handler, HandlerMap } from '../../src/platform/operations/handler-types.js';

declare const handlers: HandlerMap;
declare const bot: Awaited<ReturnType<Handler<'getBot'>>>['body'];

const { registerBot: _registerBot, ...withoutRegisterBot } = handlers;
// @ts-expect-error a map that lacks an operation's handler is not a HandlerMap
withoutRegisterBot satisfies HandlerMap;

// @ts-expect-error getBot must answer a Bot
export const wrongBody: Handler<'getBot'> = async () => ({
  status: 200,
  body: { title: 'a post, not a bot' },
});

// @ts-expect-error getBot documents no 201
export const undocumentedStatus: Handler<'getBot'> = async () => ({ status: 201, body: bot });

export const wrongParameter: Handler<'getBot'> = async ({ params }) => {
  // @ts-expect-error getBot's path parameter is `id`
  void params.botId;
  return { status: 200, body: bot };
};

export const wrongBodyField: Handler<'registerBot'> = async ({ body }) => {
  // @ts-expect-error registerBot's body has no `colour`
  void body.colour;
  throw new Error('unreachable');
};

export const rightHandler: Handler<'getBot'> = async ({ params }) => ({
  status: 200,
  body: { ...bot, id: params.id },
});
