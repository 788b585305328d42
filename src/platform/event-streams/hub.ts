// The streams this instance holds open (./README.md), fed by what the database's
// triggers NOTIFY after each commit (../db/signals.ts). A stream subscribes to a topic (a bot's
// notifications, the feed); a signal names a topic and the number of its newest event; the topic
// reads what is new once for every stream of this instance (kept a while, for streams a little
// behind), and each stream sends what lies after its own cursor. Numbers follow commit order with no
// gap (src/notifications/sql/number_notification.sql, src/feed/sql/stamp_feed_events.sql), so "after the cursor" is exact: none lost, none twice.
// Also here: the slots that bound streams per holder across instances and the keep-alive comments.
// ./plugin.ts holds one hub per app, its gauge and its closing.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
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

/** The channel the database's signals NOTIFY on (src/notifications/sql/signal_notification.sql, ./sql/). */
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
  /** Its key's expiry, in ms since the epoch (none: it never expires). */
  until: number | undefined;
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

export class StreamHub implements EventStreams {
  private readonly instanceId = randomUUID();
  private readonly topics = new Map<string, Topic>();
  readonly subscribers = new Set<Subscriber>();
  private closing = false;
  private listening: Promise<() => Promise<void>> | undefined;
  /** The slots this instance holds (or is taking): the keep-alive marks them alive, and only them. */
  private readonly heldSlots = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly signals: DatabaseSignals | undefined,
    private readonly log: FastifyBaseLogger,
  ) {}

  private warn(error: unknown, message: string) {
    this.log.warn({ err: error }, message);
  }

  // ---- Signals: listened to from the first stream on.
  private listen() {
    if (!this.signals) throw unavailable('Event streams are not available on this server.');
    this.listening ??= this.signals
      .listen(channel, {
        onSignal: (payload) => this.onSignal(payload),
        onResync: () => {
          for (const [name, topic] of this.topics) void this.refresh(name, topic);
          for (const subscriber of this.subscribers) {
            void this.pump(subscriber);
            void this.stillAdmitted(subscriber);
          }
        },
        onError: (error) => this.warn(error, 'event streams: the LISTEN connection failed; reconnecting'),
      })
      .catch((error: unknown) => {
        this.listening = undefined;
        throw isDatabaseUnavailable(error)
          ? unavailable('The database is unavailable. Retry shortly.', error)
          : error;
      });
    return this.listening;
  }

  /** Ends the stream unless its caller may still hold it. */
  async stillAdmitted(subscriber: Subscriber): Promise<boolean> {
    const admitted = await (subscriber.admitted?.() ?? true);
    if (!admitted) subscriber.close();
    return admitted;
  }

  onSignal(payload: string) {
    // Any role of the database may NOTIFY on the channel: a payload not of ours is passed over.
    try {
      this.dispatch(payload);
    } catch (error) {
      this.warn(error, 'event streams: a signal could not be read');
    }
  }

  dispatch(payload: string) {
    const [kind, first, second] = payload.split(' ');
    if (kind === 'end') {
      for (const subscriber of this.subscribers) if (subscriber.botId === first) subscriber.close();
      return;
    }
    const [name, seq] = kind === 'feed' ? ['feed', first] : [`notifications:${first}`, second];
    const topic = this.topics.get(name);
    if (!topic || seq === undefined) return;
    if (topic.known === undefined || BigInt(seq) > topic.known) void this.refresh(name, topic);
  }

  /** Reads the topic's new events once for all its streams, then lets each send what it lacks. */
  async refresh(name: string, topic: Topic): Promise<void> {
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
        for (const subscriber of topic.subscribers) void this.pump(subscriber);
      } while (topic.again && this.topics.get(name) === topic);
    } catch (error) {
      this.warn(error, 'event streams: reading new events failed; this.closing the streams of the topic');
      for (const subscriber of topic.subscribers) subscriber.close();
    } finally {
      topic.refreshing = false;
    }
  }

  /** Sends the subscriber what lies after its cursor: from the topic's kept events, or read when further back. */
  async pump(subscriber: Subscriber): Promise<void> {
    if (subscriber.pumping) {
      subscriber.again = true;
      return;
    }
    subscriber.pumping = true;
    try {
      const topic = this.topics.get(subscriber.source.topic);
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
      this.warn(error, 'event streams: reading events failed; this.closing the stream');
      subscriber.close();
    } finally {
      subscriber.pumping = false;
    }
  }

  // ---- Keep-alive comments and slots marked alive, every keepAliveMs (the `keep-streams-alive`
  // job of src/jobs.ts): the slots this instance holds (or is taking) only; any other row of its (a
  // release that failed) is deleted. A stream whose key expired ends instead (a revocation ends it
  // at once, by its signal; an expiry has none).
  async keepAlive(now = new Date()): Promise<void> {
    if (this.closing) return;
    for (const subscriber of this.subscribers) {
      if (subscriber.until !== undefined && subscriber.until <= now.getTime()) subscriber.close();
      else subscriber.events.comment('keep-alive');
    }
    for (const [name, topic] of this.topics) void this.refresh(name, topic);
    // An instance that never served a stream holds no slot, and asks nothing.
    if (this.listening)
      await markStreamSlotsAlive(this.db, this.instanceId, [...this.heldSlots]).catch((error: unknown) =>
        this.warn(error, 'event streams: marking this instance’s slots alive failed'),
      );
  }

  /** Stamps the topics of this instance's streams that number their events off the write path. */
  async stamp(): Promise<void> {
    const stamps = [...this.topics.values()].flatMap((topic) => (topic.stamp ? [topic.stamp] : []));
    await Promise.all(
      stamps.map((stampTopic) =>
        stampTopic().catch((error: unknown) => this.warn(error, 'event streams: stamping new events failed')),
      ),
    );
  }

  async open(reply: FastifyReply, options: OpenStream): Promise<void> {
    if (this.closing) throw unavailable('The server is shutting down. Retry shortly.');
    if (reply.request.method === 'HEAD') {
      // A HEAD is told what a GET would open, and holds nothing.
      const head = new ServerSentEvents(reply);
      head.open();
      head.end();
      return;
    }
    await this.listen();
    const slot = randomUUID();
    this.heldSlots.add(slot);
    // Every stream counts against its client address; a bot's, against the bot too.
    const holders: SlotHolder[] = [
      ...(options.botId ? [{ holder: `bot:${options.botId}`, max: streamsPerBot }] : []),
      { holder: `ip:${clientAddress(reply.request)}`, max: streamsPerAddress },
    ];
    let refused: Awaited<ReturnType<typeof takeStreamSlots>>;
    try {
      refused = await takeStreamSlots(this.db, {
        id: slot,
        holders,
        instanceId: this.instanceId,
        lapseMs: slotLapseMs,
      });
    } catch (error) {
      this.heldSlots.delete(slot);
      throw error;
    }
    if (refused) {
      this.heldSlots.delete(slot);
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
    let topic = this.topics.get(source.topic);
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
      this.topics.set(source.topic, topic);
    }
    const subscriber: Subscriber = {
      stream: options.stream,
      botId: options.botId,
      admitted: options.admitted,
      until: options.until?.getTime(),
      source,
      events: new ServerSentEvents(reply),
      cursor: 0n,
      pumping: true, // nothing is sent before the stream is open
      again: false,
      close: () => {
        if (!this.subscribers.delete(subscriber)) return;
        subscriber.events.end();
        const current = this.topics.get(source.topic);
        current?.subscribers.delete(subscriber);
        if (current && current.subscribers.size === 0) this.forget(source.topic, current);
        this.heldSlots.delete(slot);
        if (!this.closing)
          releaseStreamSlots(this.db, [slot]).catch((error: unknown) =>
            this.warn(error, 'event streams: releasing a slot failed (the next keep-alive deletes it)'),
          );
      },
    };
    // Subscribed before the start is read: a signal meanwhile is not missed.
    this.subscribers.add(subscriber);
    topic.subscribers.add(subscriber);
    let start: Awaited<ReturnType<StreamSource['start']>>;
    try {
      // An `end` signal sent before the subscription is not heard: the caller is asked again.
      if (!(await this.stillAdmitted(subscriber)))
        throw unavailable('The stream ended before it opened. Retry.');
      start = await source.start();
    } catch (error) {
      subscriber.close();
      throw error;
    }
    if (!this.subscribers.has(subscriber) || this.closing) {
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
    if (wasKnown === undefined) void this.refresh(source.topic, topic);
    void this.pump(subscriber);
    setTimeout(() => {
      const current = this.topics.get(source.topic);
      if (current) void this.refresh(source.topic, current);
    }, rereadAfterOpenMs).unref();
  }

  forget(name: string, topic: Topic) {
    if (this.topics.get(name) === topic) this.topics.delete(name);
  }

  closeAll() {
    for (const subscriber of [...this.subscribers]) subscriber.close();
    for (const [name, topic] of this.topics) this.forget(name, topic);
  }

  /** At shutdown: every stream ended (clients reconnect to another instance with Last-Event-ID), the slots released. */
  async close(): Promise<void> {
    this.closing = true;
    this.closeAll();
    await releaseInstanceSlots(this.db, this.instanceId).catch((error: unknown) =>
      this.warn(
        error,
        'event streams: releasing this instance’s slots at shutdown failed (they lapse in 45 s)',
      ),
    );
  }

  /** Stops listening, once the app has closed. */
  async unlisten(): Promise<void> {
    const unlisten = await this.listening?.catch(() => undefined);
    await unlisten?.();
  }
}
