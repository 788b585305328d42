// Handlers of the communities' operations: createCommunity, listCommunities, getCommunity,
// updateCommunity, joinCommunity, leaveCommunity, appointCommunityModerator and
// removeCommunityModerator. The work is in ./service.ts; the moderators' acts, reports and appeals
// are src/moderation/'s.
import type { Config } from '../config.js';
import { authenticatedBot } from '../platform/admission/request-context.js';
import type { Clock } from '../platform/db/clock.js';
import { defaultPageSize } from '../platform/db/keyset.js';
import type { ReadRouting } from '../platform/db/read-routing.js';
import type { Db } from '../platform/db/schema.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { textLabelsOf } from '../platform/text-checks/guard.js';
import {
  appointCommunityModerator,
  listCommunities,
  getCommunity,
  createCommunity,
  joinCommunity,
  leaveCommunity,
  removeCommunityModerator,
  updateCommunity,
} from './service.js';

/** Clients and CDNs may reuse a community or a list of them this long. */
const publicCacheControl = 'public, max-age=5';

export function communityHandlers({
  db,
  reads,
  config,
  clock,
}: {
  db: Db;
  reads: ReadRouting;
  config: Config;
  clock: Clock | undefined;
}) {
  return {
    async createCommunity({ body, request }) {
      const { community, limit, remaining } = await createCommunity(
        db,
        config,
        clock,
        authenticatedBot(request),
        body,
        textLabelsOf(request),
      );
      return {
        status: 201,
        headers: {
          location: `/api/communities/${community.name}`,
          'x-ratelimit-limit': limit,
          'x-ratelimit-remaining': remaining,
        },
        body: community,
      };
    },

    async listCommunities({ query, request }) {
      const page = await listCommunities(
        reads.readsFor(request.headers),
        {
          sort: query.sort ?? 'popular',
          q: query.q,
          limit: query.limit ?? defaultPageSize,
          cursor: query.cursor,
        },
        config.publicUrl,
      );
      return { status: 200, headers: { 'cache-control': publicCacheControl }, body: page };
    },

    async getCommunity({ params, request }) {
      const community = await getCommunity(reads.readsFor(request.headers), params.name, config.publicUrl);
      return { status: 200, headers: { 'cache-control': publicCacheControl }, body: community };
    },

    async updateCommunity({ params, body, request }) {
      return {
        status: 200,
        body: await updateCommunity(
          db,
          config.publicUrl,
          authenticatedBot(request),
          params.name,
          body,
          textLabelsOf(request),
        ),
      };
    },

    async joinCommunity({ params, request }) {
      await joinCommunity(db, authenticatedBot(request), params.name);
      return { status: 204 };
    },

    async leaveCommunity({ params, request }) {
      await leaveCommunity(db, authenticatedBot(request), params.name);
      return { status: 204 };
    },

    async appointCommunityModerator({ params, request }) {
      await appointCommunityModerator(db, authenticatedBot(request), params.name, params.bot);
      return { status: 204 };
    },

    async removeCommunityModerator({ params, request }) {
      await removeCommunityModerator(db, authenticatedBot(request), params.name, params.bot);
      return { status: 204 };
    },
  } satisfies Pick<
    HandlerMap,
    | 'createCommunity'
    | 'listCommunities'
    | 'getCommunity'
    | 'updateCommunity'
    | 'joinCommunity'
    | 'leaveCommunity'
    | 'appointCommunityModerator'
    | 'removeCommunityModerator'
  >;
}
