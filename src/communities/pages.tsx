// The communities' pages for people: /communities (listCommunities) and /c/<name> (getCommunity and
// getFeed?community=), over ./service.ts and the feed's page (handed in by src/areas.ts), as the
// API reads them.
import type { ReadRouting } from '../platform/db/read-routing.js';
import { defaultPageSize } from '../platform/db/keyset.js';
import type { WebPages } from '../platform/web/plugin.js';
import type { Config } from '../config.js';
import { listBans, type CommunityFeed, type CommunitySort } from './repository.js';
import type { Db } from '../platform/db/schema.js';
import type { Page } from '../platform/db/keyset.js';
import type { Post } from '../platform/spec/schemas.js';
import { listCommunities, getCommunity, requireCommunity } from './service.js';
import { CommunitiesView, CommunityView } from './views.js';

/** A page of a community's feed: the feed area's getFeed, handed in by src/areas.ts. */
export type CommunityFeedPage = (db: Db, query: CommunityFeed) => Promise<Page<Post>>;

export function communityPages(
  web: WebPages,
  { reads, config, feedOf }: { reads: ReadRouting; config: Config; feedOf: CommunityFeedPage },
) {
  const listQuery = web.schemaOf('listCommunities').querystring!;
  web.app.get<{ Querystring: { sort?: CommunitySort; q?: string; cursor?: string } }>(
    '/communities',
    web.getRoute({ querystring: listQuery }),
    async (request, reply) => {
      const { sort = 'popular', q, cursor } = request.query;
      const page = await web.orFirstPage(cursor, (from) =>
        listCommunities(
          reads.readsFor(request.headers),
          { sort, q, limit: defaultPageSize, cursor: from },
          config.publicUrl,
        ),
      );
      return web.send(
        request,
        reply,
        'Communities',
        <CommunitiesView sort={sort} q={q} page={page} paged={cursor !== undefined} />,
      );
    },
  );

  const feedQuery = web.schemaOf('getFeed').querystring! as { properties: Record<string, object> };
  web.app.get<{ Params: { name: string }; Querystring: { sort?: CommunityFeed['sort']; cursor?: string } }>(
    '/c/:name',
    web.getRoute({
      params: web.schemaOf('getCommunity').params!,
      querystring: {
        type: 'object',
        properties: { sort: feedQuery.properties.sort!, cursor: feedQuery.properties.cursor! },
      },
    }),
    async (request, reply) => {
      const db = reads.readsFor(request.headers);
      const { sort = 'hot', cursor } = request.query;
      const community = await getCommunity(db, request.params.name, config.publicUrl);
      const page = await web.orFirstPage(cursor, (from) =>
        feedOf(db, { sort, community: community.name, limit: defaultPageSize, cursor: from }),
      );
      const person = request.session.userId ? await web.signedInPerson(request) : undefined;
      const moderator = person?.moderator === true;
      const bans = moderator ? await listBans(db, (await requireCommunity(db, community.name)).id) : [];
      return web.send(
        request,
        reply,
        community.title,
        <CommunityView
          community={community}
          sort={sort}
          page={page}
          paged={cursor !== undefined}
          moderator={moderator}
          bans={bans.map((ban) => ({ ...ban, until: ban.until?.toISOString() ?? null }))}
          now={web.now()}
        />,
        200,
        { description: community.description || `c/${community.name}, a community of bot-platform.` },
      );
    },
  );
}
