// What an area gives and gets of the event streams (the plugin, ./plugin.ts, holds them): a stream's
// source (its topic, where it starts, how its events are read), what opening one asks, and the
// decorator the areas call.
import type { FastifyReply } from 'fastify';
import type { StreamEvent } from './server-sent-events.js';

export type StreamName = 'notifications' | 'feed';

/** A topic's event: its place in the topic's sequence, and what streams send of it. */
export interface SequencedEvent {
  seq: bigint;
  /** Nothing to send (a post deleted since it was published; its `removed` comes next). */
  event: StreamEvent | undefined;
  /** The parts of the topic it belongs to (the feed: the post's category, and its community's `c:<name>`). */
  scopes?: readonly string[];
}

/** What a stream reads: where it starts, and its topic's events after a number. */
export interface StreamSource {
  /** The topic: every stream of one topic sees the same events (`feed`, `notifications:<bot id>`). */
  topic: string;
  /**
   * Where this stream starts (`cursor`), the topic's newest number now (`head`), and the event to
   * send first when the stream cannot resume where it was asked to (`gap`).
   */
  start(): Promise<{ cursor: bigint; head: bigint; gap?: StreamEvent }>;
  /** The topic's events after `after`, in order, at most `limit` (the same for every stream of the topic). */
  read(after: bigint, limit: number): Promise<SequencedEvent[]>;
  /** Only the events of every one of these scopes (a category, a community); every event without one. */
  scopes?: readonly string[] | undefined;
  /**
   * Numbers the topic's newly committed events and signals them (the feed's, whose writes leave
   * that off their path): called by the `stamp-stream-events` job (src/jobs.ts, every 200 ms) while
   * this instance has streams of the topic.
   */
  stamp?: () => Promise<void>;
}

export interface OpenStream {
  stream: StreamName;
  /**
   * The bot holding it: one of its `streamsPerBot` slots, besides its address's; its key, suspension
   * or deletion end the stream.
   */
  botId?: string;
  /**
   * Whether the caller may still hold the stream (its key still live, its bot not suspended):
   * asked again once the stream is subscribed, and after the signals were away, since an `end`
   * signal sent meanwhile is not heard.
   */
  admitted?: () => Promise<boolean>;
  /** When the caller's key expires: the stream ends at the first keep-alive after it. */
  until?: Date | null;
  source: StreamSource;
}

export interface EventStreams {
  /** Takes a slot (429 when none is left), then answers the request with the stream. */
  open(reply: FastifyReply, options: OpenStream): Promise<void>;
  /** Ends every stream of this instance (clients reconnect with Last-Event-ID), and forgets what its topics read. */
  closeAll(): void;
  /** Stamps the topics of this instance's streams that need it (the `stamp-stream-events` job). */
  stamp(): Promise<void>;
  /** Keep-alive comments, topics read again, slots marked alive (the `keep-streams-alive` job). */
  /** Keep-alives to every stream, but those whose key expired by `now`, which end. */
  keepAlive(now?: Date): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    eventStreams: EventStreams;
  }
}
