// Event streams (its README): the streams this instance holds open, fed by what the database's
// triggers NOTIFY after each commit (../db/signals.ts). A stream subscribes to a topic (a bot's
// notifications, the feed); a signal names a topic and the number of its newest event; the topic
// reads what is new once for every stream of this instance (kept a while, for streams a little
// behind), and each stream sends what lies after its own cursor. Numbers follow commit order with no
// gap (the event-streams migration), so "after the cursor" is exact: none lost, none twice.
// Also here: the slots that bound streams per holder across instances, the keep-alive comments,
// the `event_streams_open` gauge, and closing every stream when the app closes.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { Gauge } from 'prom-client';
import type { DatabaseSignals } from '../db/signals.js';
import type { Db } from '../db/schema.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { ProblemError, unavailable } from '../spec/problems.js';
import { clientAddress } from '../admission/rate-limit-plugin.js';
import {
  markStreamSlotsAlive,
  releaseInstanceSlots,
  releaseStreamSlots,
  takeStreamSlots,
  type SlotHolder,
} from './repository.js';
import { ServerSentEvents } from './server-sent-events.js';
import type { EventStreams, OpenStream, SequencedEvent, StreamName, StreamSource } from './streams.js';

/** The channel the event-streams migration's triggers NOTIFY on. */
const channel = 'bot_platform_events';
/** A comment line this often keeps proxies from closing an idle stream; slots are marked alive as often. */
export const keepAliveMs = 15_000;
/** A slot not marked alive for this long no longer counts (its instance is gone). */
const slotLapseMs = 45_000;
/** Streams one bot may hold open at once, across instances. */
export const streamsPerBot = 3;
/** Streams one client address (IPv6 by /64) may hold open at once, of both kinds, across instances. */
export const streamsPerAddress = 5;
/** Events read at a time. */
const readLimit = 100;
/** Events a topic keeps for its streams that are a little behind. */
const keptEvents = 512;
/**
 * A write checks whether its recipient holds a stream before signalling (most hold none): one
 * that checked just before a stream's slot was taken signals nothing, so a stream's topic is read
 * again this long after it opens, and with every keep-alive.
 */
const rereadAfterOpenMs = 1_000;

interface Subscriber {
  stream: StreamName;
  botId: string | undefined;
  admitted: OpenStream['admitted'];
  source: StreamSource;
  events: ServerSentEvents;
  cursor: bigint;
  /** Set while it sends what it had to catch up on; signals meanwhile make it look again. */
  pumping: boolean;
  again: boolean;
  close(): void;
}

interface Topic {
  read: StreamSource['read'];
  subscribers: Set<Subscriber>;
  /** The newest number read (undefined until the first stream's start tells it). */
  known: bigint | undefined;
  /** What was read last, in order, contiguous: events known - kept.length + 1 … known. */
  kept: SequencedEvent[];
  refreshing: boolean;
  again: boolean;
  /** The source's stamp (the feed's): run by the `stamp-stream-events` job while the topic has streams. */
  stamp: StreamSource['stamp'];
}

export interface EventStreamsOptions {
  db: Db;
  /** The database's NOTIFYs; without them (some tests' apps), streams answer 503. */
  signals?: DatabaseSignals | undefined;
}

export default fp<EventStreamsOptions>(
  async function eventStreams(app: FastifyInstance, { db, signals }) {
    const instanceId = randomUUID();
    const topics = new Map<string, Topic>();
    const subscribers = new Set<Subscriber>();
    let closing = false;

    new Gauge({
      name: 'event_streams_open',
      help: 'Event streams this instance holds open, by stream.',
      labelNames: ['stream'] as const,
      registers: [app.metrics],
      collect() {
        this.reset();
        const open: Record<StreamName, number> = { notifications: 0, feed: 0 };
        for (const subscriber of subscribers) open[subscriber.stream]++;
        for (const [stream, count] of Object.entries(open)) this.set({ stream }, count);
      },
    });

    const warn = (error: unknown, message: string) => app.log.warn({ err: error }, message);

    // ---- Signals: listened to from the first stream on.
    let listening: Promise<() => Promise<void>> | undefined;
    const listen = () => {
      if (!signals) throw unavailable('Event streams are not available on this server.');
      listening ??= signals
        .listen(channel, {
          onSignal: (payload) => onSignal(payload),
          onResync: () => {
            for (const [name, topic] of topics) void refresh(name, topic);
            for (const subscriber of subscribers) {
              void pump(subscriber);
              void stillAdmitted(subscriber);
            }
          },
          onError: (error) => warn(error, 'event streams: the LISTEN connection failed; reconnecting'),
        })
        .catch((error: unknown) => {
          listening = undefined;
          throw isDatabaseUnavailable(error)
            ? unavailable('The database is unavailable. Retry shortly.', error)
            : error;
        });
      return listening;
    };

    /** Ends the stream unless its caller may still hold it. */
    async function stillAdmitted(subscriber: Subscriber): Promise<boolean> {
      const admitted = await (subscriber.admitted?.() ?? true);
      if (!admitted) subscriber.close();
      return admitted;
    }

    function onSignal(payload: string) {
      // Any role of the database may NOTIFY on the channel: a payload not of ours is passed over.
      try {
        dispatch(payload);
      } catch (error) {
        warn(error, 'event streams: a signal could not be read');
      }
    }

    function dispatch(payload: string) {
      const [kind, first, second] = payload.split(' ');
      if (kind === 'end') {
        for (const subscriber of subscribers) if (subscriber.botId === first) subscriber.close();
        return;
      }
      const [name, seq] = kind === 'feed' ? ['feed', first] : [`notifications:${first}`, second];
      const topic = topics.get(name);
      if (!topic || seq === undefined) return;
      if (topic.known === undefined || BigInt(seq) > topic.known) void refresh(name, topic);
    }

    /** Reads the topic's new events once for all its streams, then lets each send what it lacks. */
    async function refresh(name: string, topic: Topic): Promise<void> {
      if (topic.known === undefined) return;
      if (topic.refreshing) {
        topic.again = true;
        return;
      }
      topic.refreshing = true;
      try {
        do {
          topic.again = false;
          for (;;) {
            const events = await topic.read(topic.known, readLimit);
            for (const event of events) topic.kept.push(event);
            if (topic.kept.length > keptEvents) topic.kept.splice(0, topic.kept.length - keptEvents);
            if (events.length > 0) topic.known = events.at(-1)!.seq;
            if (events.length < readLimit) break;
          }
          for (const subscriber of topic.subscribers) void pump(subscriber);
        } while (topic.again && topics.get(name) === topic);
      } catch (error) {
        warn(error, 'event streams: reading new events failed; closing the streams of the topic');
        for (const subscriber of topic.subscribers) subscriber.close();
      } finally {
        topic.refreshing = false;
      }
    }

    /** Sends the subscriber what lies after its cursor: from the topic's kept events, or read when further back. */
    async function pump(subscriber: Subscriber): Promise<void> {
      if (subscriber.pumping) {
        subscriber.again = true;
        return;
      }
      subscriber.pumping = true;
      try {
        const topic = topics.get(subscriber.source.topic);
        do {
          subscriber.again = false;
          for (;;) {
            if (subscriber.events.ended || !topic) return;
            const first = topic.kept[0]?.seq;
            let events: SequencedEvent[];
            if (first !== undefined && first <= subscriber.cursor + 1n)
              events = topic.kept.filter((event) => event.seq > subscriber.cursor);
            else if (topic.known !== undefined && subscriber.cursor < topic.known)
              events = await subscriber.source.read(subscriber.cursor, readLimit);
            else events = [];
            if (events.length === 0) break;
            const { scopes } = subscriber.source;
            for (const { seq, event, scopes: of } of events) {
              if (event && (scopes === undefined || scopes.every((scope) => of?.includes(scope))))
                subscriber.events.send(event);
              subscriber.cursor = seq;
            }
          }
        } while (subscriber.again);
      } catch (error) {
        warn(error, 'event streams: reading events failed; closing the stream');
        subscriber.close();
      } finally {
        subscriber.pumping = false;
      }
    }

    // ---- Keep-alive comments and slots marked alive, every keepAliveMs (the `keep-streams-alive`
    // job of src/jobs.ts): the slots this instance holds (or is taking) only; any other row of its (a
    // release that failed) is deleted.
    const heldSlots = new Set<string>();
    async function keepAlive(): Promise<void> {
      if (closing) return;
      for (const subscriber of subscribers) subscriber.events.comment('keep-alive');
      for (const [name, topic] of topics) void refresh(name, topic);
      // An instance that never served a stream holds no slot, and asks nothing.
      if (listening)
        await markStreamSlotsAlive(db, instanceId, [...heldSlots]).catch((error: unknown) =>
          warn(error, 'event streams: marking this instance’s slots alive failed'),
        );
    }

    /** Stamps the topics of this instance's streams that number their events off the write path. */
    async function stamp(): Promise<void> {
      const stamps = [...topics.values()].flatMap((topic) => (topic.stamp ? [topic.stamp] : []));
      await Promise.all(
        stamps.map((stampTopic) =>
          stampTopic().catch((error: unknown) => warn(error, 'event streams: stamping new events failed')),
        ),
      );
    }

    async function open(reply: FastifyReply, options: OpenStream): Promise<void> {
      if (closing) throw unavailable('The server is shutting down. Retry shortly.');
      if (reply.request.method === 'HEAD') {
        // A HEAD is told what a GET would open, and holds nothing.
        const head = new ServerSentEvents(reply);
        head.open();
        head.end();
        return;
      }
      await listen();
      const slot = randomUUID();
      heldSlots.add(slot);
      // Every stream counts against its client address; a bot's, against the bot too.
      const holders: SlotHolder[] = [
        ...(options.botId ? [{ holder: `bot:${options.botId}`, max: streamsPerBot }] : []),
        { holder: `ip:${clientAddress(reply.request)}`, max: streamsPerAddress },
      ];
      let refused: Awaited<ReturnType<typeof takeStreamSlots>>;
      try {
        refused = await takeStreamSlots(db, { id: slot, holders, instanceId, lapseMs: slotLapseMs });
      } catch (error) {
        heldSlots.delete(slot);
        throw error;
      }
      if (refused) {
        heldSlots.delete(slot);
        const retryAfter = Math.max(1, Math.ceil(refused.retryAfterMs / 1000));
        const who = refused.full.holder.startsWith('bot:')
          ? `This bot already holds ${refused.full.max} streams`
          : `This client address already holds ${refused.full.max} streams (notification and feed streams together)`;
        throw new ProblemError(
          429,
          'too_many_streams',
          `${who}, the most it may; close one, or retry in ${retryAfter} seconds.`,
          { headers: { 'retry-after': retryAfter }, limitName: `${options.stream}-streams` },
        );
      }
      const { source } = options;
      let topic = topics.get(source.topic);
      if (!topic) {
        topic = {
          read: (after, limit) => source.read(after, limit),
          subscribers: new Set(),
          known: undefined,
          kept: [],
          refreshing: false,
          again: false,
          stamp: source.stamp,
        };
        topics.set(source.topic, topic);
      }
      const subscriber: Subscriber = {
        stream: options.stream,
        botId: options.botId,
        admitted: options.admitted,
        source,
        events: new ServerSentEvents(reply),
        cursor: 0n,
        pumping: true, // nothing is sent before the stream is open
        again: false,
        close: () => {
          if (!subscribers.delete(subscriber)) return;
          subscriber.events.end();
          const current = topics.get(source.topic);
          current?.subscribers.delete(subscriber);
          if (current && current.subscribers.size === 0) forget(source.topic, current);
          heldSlots.delete(slot);
          if (!closing)
            releaseStreamSlots(db, [slot]).catch((error: unknown) =>
              warn(error, 'event streams: releasing a slot failed (the next keep-alive deletes it)'),
            );
        },
      };
      // Subscribed before the start is read: a signal meanwhile is not missed.
      subscribers.add(subscriber);
      topic.subscribers.add(subscriber);
      let start: Awaited<ReturnType<StreamSource['start']>>;
      try {
        // An `end` signal sent before the subscription is not heard: the caller is asked again.
        if (!(await stillAdmitted(subscriber)))
          throw unavailable('The stream ended before it opened. Retry.');
        start = await source.start();
      } catch (error) {
        subscriber.close();
        throw error;
      }
      if (!subscribers.has(subscriber) || closing) {
        // Ended while it started (its key revoked, the server shutting down): answered as a retry.
        subscriber.close();
        throw unavailable('The stream ended before it opened. Retry.');
      }
      const wasKnown = topic.known;
      topic.known ??= start.head;
      subscriber.cursor = start.cursor;
      subscriber.events.open();
      reply.raw.on('close', () => subscriber.close());
      if (reply.raw.destroyed) subscriber.close();
      if (start.gap) subscriber.events.send(start.gap);
      subscriber.pumping = false;
      // A new topic may have been signalled before it knew where it stood.
      if (wasKnown === undefined) void refresh(source.topic, topic);
      void pump(subscriber);
      setTimeout(() => {
        const current = topics.get(source.topic);
        if (current) void refresh(source.topic, current);
      }, rereadAfterOpenMs).unref();
    }

    function forget(name: string, topic: Topic) {
      if (topics.get(name) === topic) topics.delete(name);
    }

    function closeAll() {
      for (const subscriber of [...subscribers]) subscriber.close();
      for (const [name, topic] of topics) forget(name, topic);
    }

    app.decorate('eventStreams', { open, closeAll, stamp, keepAlive } satisfies EventStreams);

    app.addHook('preClose', async () => {
      closing = true;
      // Clients reconnect (to another instance) with Last-Event-ID.
      closeAll();
      await releaseInstanceSlots(db, instanceId).catch((error: unknown) =>
        warn(error, 'event streams: releasing this instance’s slots at shutdown failed (they lapse in 45 s)'),
      );
    });
    app.addHook('onClose', async () => {
      const unlisten = await listening?.catch(() => undefined);
      await unlisten?.();
    });
  },
  { name: 'event-streams', dependencies: ['metrics'] },
);
