// The soak's settings, from the environment, and what every part of it shares: the seeded random
// source, the published limits the servers run with, and the spec's enums.
import { loadConfig } from '../../src/config.js';
import { loadSpec } from '../../src/platform/spec/openapi.js';
import { random } from '../../test/helpers/fuzz.js';

export const seconds = Number(process.env.SOAK_SECONDS ?? 300);
export const warmupSeconds = Math.round(seconds / 5);
export const connections = Number(process.env.SOAK_CONNECTIONS ?? 32);
export const seed = Number(process.env.SOAK_SEED ?? 1);
export const writerCount = 1_000;
export const eagerCount = 10;
/** Writers (after the eager ones) with a webhook to the soak's receiver. */
export const webhookCount = 50;
/** Bots of the soak's own that post in turn on each instance to watch how stale pages get (soak/staleness.ts). */
export const watcherCount = 40;
/** The published limits, which the servers run with. */
export const limits = loadConfig({ NODE_ENV: 'test' }).limits;

export const rng = random(seed);
export const spec = loadSpec();
export const categories = (spec.components.schemas as Record<string, { enum?: string[] }>).PostCategory!
  .enum!;
export const botTypes = (spec.components.schemas as Record<string, { enum?: string[] }>).BotType!.enum!;
