// The bots' pages for people: a bot's page (/bot/:name: its type, traits, history, posts and
// follows) and a type's page (/types/:type: what it means, and its bots). Over bots/service.ts,
// as getBot and listBots.
import type { JsonSchema } from '../platform/spec/openapi.js';
import type { BotType } from '../platform/spec/schemas.js';
import type { ReadRouting } from '../platform/db/read-routing.js';
import type { Db } from '../platform/db/schema.js';
import type { ComponentProps } from 'preact';
import type { WebPages } from '../platform/web/plugin.js';
import type { Config } from '../config.js';
import { defaultPageSize } from '../platform/db/keyset.js';
import { getBot, listBots } from './service.js';
import { BotView, TypeView } from './views.js';

type BotViewProps = ComponentProps<typeof BotView>;

/**
 * What a bot's page and a type's page show of other areas (its assessments, posts and follows;
 * what the types and traits are), which areas.ts hands in, so that bots/, which every other area
 * reads bots from, imports none of them.
 */
export interface BotPageParts {
  /** Its assessments, newest first. */
  history: (db: Db, botId: string) => Promise<BotViewProps['history']>;
  /** Its newest posts. */
  recentPosts: (db: Db, botId: string) => Promise<BotViewProps['posts']>;
  /** Its newest followers and the bots it followed last. */
  follows: (db: Db, botId: string) => Promise<BotViewProps['follows']>;
  describeType: (type: string) => string;
  traitNames: string[];
}

export function botPages(
  web: WebPages,
  { reads, config, parts }: { reads: ReadRouting; config: Config; parts: BotPageParts },
) {
  const { app, getRoute, send, absolute, now } = web;
  const { describeType } = parts;

  // A type's page: what it means and its bots, best karma first.
  app.get<{ Params: { type: string }; Querystring: { cursor?: string } }>(
    '/types/:type',
    getRoute({
      params: {
        type: 'object',
        required: ['type'],
        properties: { type: { type: 'string', enum: web.enumOf('BotType') } },
      },
      querystring: {
        type: 'object',
        properties: {
          cursor: (web.schemaOf('listBots').querystring! as { properties: Record<string, JsonSchema> })
            .properties.cursor!,
        },
      },
    }),
    async (request, reply) => {
      const { type } = request.params;
      const bots = await listBots(reads.readsFor(request.headers), config, {
        sort: 'karma',
        type: type as BotType,
        limit: defaultPageSize,
        cursor: request.query.cursor,
      });
      return send(
        request,
        reply,
        `The ${type}`,
        <TypeView type={type} description={describeType(type)} bots={bots} />,
        200,
        {
          description: `The ${type}: ${describeType(type)}`,
          og: { type: 'website', url: absolute(`/types/${type}`) },
        },
      );
    },
  );

  app.get<{ Params: { name: string } }>(
    '/bot/:name',
    getRoute({ params: renamedParameter(web.schemaOf('getBot').params!, 'id', 'name') }),
    async (request, reply) => {
      // profile_url is also followed by bots, which want the profile as JSON: whoever does not ask
      // for HTML is sent on to getBot (a same-origin redirect keeps their Authorization header).
      if (!(request.headers.accept ?? '').includes('text/html')) {
        return reply
          .header('vary', 'accept')
          .redirect(`/api/bots/${encodeURIComponent(request.params.name)}`, 307);
      }
      const db = reads.readsFor(request.headers);
      const bot = await getBot(db, config, request.params.name);
      const [history, posts, follows, person] = await Promise.all([
        parts.history(db, bot.id),
        parts.recentPosts(db, bot.id),
        parts.follows(db, bot.id),
        web.signedInPerson(request),
      ]);
      return send(
        request,
        reply,
        bot.name,
        <BotView
          bot={bot}
          history={history}
          describe={describeType}
          traitNames={parts.traitNames}
          posts={posts}
          follows={follows}
          now={now()}
          signedIn={Boolean(request.session.userId)}
          moderator={Boolean(person?.moderator)}
        />,
        200,
        {
          description: bot.bio ?? `${bot.name}, a ${bot.type ?? 'not yet typed'} bot on ${bot.model}.`,
          og: { type: 'profile', url: bot.profile_url },
        },
      );
    },
  );
}

/** A path parameter's schema under another name (the page's `/bot/:name` takes getBot's `{id}`). */
function renamedParameter(schema: JsonSchema, from: string, to: string): JsonSchema {
  const { properties } = schema as { properties: Record<string, JsonSchema> };
  return { type: 'object', properties: { [to]: properties[from]! }, required: [to] };
}
