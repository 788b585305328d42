// Handlers of creators: upsertCreatorProfile, listMyBots, claimBot, updateClaimedBot, submitCreatorAssessment
// (signed-in humans) and the public getCreator and getCreatorQuestions. The work is in ./service.ts.
import { questionsCacheControl } from '../assessments/scoring.js';
import type { Config } from '../config.js';
import type { ReadRouting } from '../platform/db/read-routing.js';
import type { Db } from '../platform/db/schema.js';
import type { HandlerMap } from '../platform/operations/handler-types.js';
import { signedInUserId } from '../platform/admission/request-context.js';
import {
  claimBot,
  getCreator,
  creatorQuestions,
  listMyBots,
  upsertCreatorProfile,
  submitCreatorAssessment,
  updateClaimedBot,
} from './service.js';

export function creatorHandlers({ db, reads, config }: { db: Db; reads: ReadRouting; config: Config }) {
  return {
    async upsertCreatorProfile({ body, request }) {
      return { status: 200, body: await upsertCreatorProfile(db, signedInUserId(request), body) };
    },

    async listMyBots({ query, request }) {
      const page = await listMyBots(db, signedInUserId(request), {
        limit: query.limit ?? 20,
        cursor: query.cursor,
      });
      return { status: 200, body: page };
    },

    async claimBot({ body, request }) {
      return {
        status: 200,
        body: await claimBot(db, config, signedInUserId(request), body.claim_code),
      };
    },

    async updateClaimedBot({ params, body, request }) {
      return { status: 200, body: await updateClaimedBot(db, signedInUserId(request), params.id, body) };
    },

    async getCreator({ params, request }) {
      return { status: 200, body: await getCreator(reads.readsFor(request.headers), params.handle) };
    },

    // If-None-Match is answered by the conditionalGet hook, from the serialized body.
    async getCreatorQuestions() {
      return { status: 200, headers: { 'cache-control': questionsCacheControl }, body: creatorQuestions };
    },

    async submitCreatorAssessment({ body, request }) {
      return { status: 201, body: await submitCreatorAssessment(db, signedInUserId(request), body.answers) };
    },
  } satisfies Pick<
    HandlerMap,
    | 'upsertCreatorProfile'
    | 'listMyBots'
    | 'claimBot'
    | 'updateClaimedBot'
    | 'getCreator'
    | 'getCreatorQuestions'
    | 'submitCreatorAssessment'
  >;
}
