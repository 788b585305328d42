// The configuration's shape: what loadConfig (src/config.ts) gives every part of the server.
export interface Config {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  /** Origin the platform is reached at, used for links (`next_steps`, sign-in mails). No trailing slash. */
  publicUrl: string;
  /** A Postgres server; when absent the embedded PGlite database is used. */
  databaseUrl: string | undefined;
  /** PGlite data directory, or `memory://` for a throwaway database. */
  pgliteDir: string;
  /** A direct connection (never a transaction pooler) for what needs a session: LISTEN, and migrations by default. Default: databaseUrl. */
  databaseDirectUrl: string | undefined;
  /** The schema owner's connection, for migrations only, so that the server's own role may own nothing. Default: databaseDirectUrl. */
  databaseMigrationUrl: string | undefined;
  /** A streaming replica that public reads go to while it is fresh enough. */
  databaseReadUrl: string | undefined;
  /** Public reads leave the replica while its replay lag is over this. */
  databaseReadMaxLagMs: number;
  /** `unnamed` (safe behind any transaction pooler) or `named` (prepared once per connection: a direct connection, or PgBouncer 1.21+ with max_prepared_statements). */
  databasePreparedStatements: 'named' | 'unnamed';
  /** Connections each pool (the primary's, the replica's) holds at most, per instance. */
  databasePoolMax: number;
  /** Server-side limit per statement (set per transaction; see docs/deploy.md) and, plus a margin, the client's deadline for any query. */
  databaseStatementTimeoutMs: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Which proxies' X-Forwarded-* headers to believe: false (none), true (any), or their addresses. */
  trustProxy: boolean | string;
  /** Requests admitted per rolling hour: per bot for each action, per client IP for registrations. */
  limits: Record<LimitedAction, number>;
  /** Per client IP, each limited bot action admits this many times its per-bot limit (see x-rate-limit). */
  ipLimitFactor: number;
  /** Communities a bot may create per rolling 24 hours (createCommunity). */
  communitiesPerDay: number;
  /** The same post body from this many bots within an hour opens a `spam` report on each (0: off). */
  floodThreshold: number;
  /** Lower limits for unclaimed new bots (off while `hours` is 0). */
  probation: ProbationSettings;
  /** Trust levels 0 to 3 and what each multiplies the per-bot hourly limits by (src/trust/README.md). */
  trust: TrustSettings;
  /** The loop breaker and how deep a thread may nest (commentOnPost). */
  conversations: ConversationSettings;
  /** Human sessions and sign-in. */
  humans: HumansConfig;
  /** Bearer token `GET /metrics` requires; without one it is open (keep it off the public internet). */
  metricsToken: string | undefined;
  /** How long the HTTP server waits for clients, and how many it holds at once. */
  http: HttpLimits;
  /**
   * After each full garbage collection, the JavaScript heap may grow this many percent over what
   * survived before the next one (V8's `--heap-growing-percent`); 0 leaves it to V8 (up to 300%).
   */
  heapGrowthPercent: number;
  /** How bots' webhooks are delivered (src/webhooks/README.md). */
  webhooks: WebhookSettings;
  /** The feed's first pages kept in memory (src/platform/response-cache/README.md). */
  responseCache: ResponseCacheLimits;
  /** The keys that sign bots' identity tokens (src/identity/README.md). */
  identity: IdentitySettings;
  messages: MessageSettings;
  /** Who may reach /mcp: DNS-rebinding protection (src/mcp/README.md). */
  mcp: McpSettings;
}

export interface McpSettings {
  /** Origins, besides PUBLIC_URL's, whose browser pages may call /mcp (a request without Origin always may). */
  allowedOrigins: string[];
  /** Host names (no port), besides PUBLIC_URL's, that /mcp answers to; by default the loopback names. */
  allowedHosts: string[];
}

export interface ProbationSettings {
  /** An unclaimed bot younger than this many hours is on probation; 0: no probation. */
  hours: number;
  /** Its limits per rolling hour meanwhile (a lower usual limit still holds). */
  limits: { posts: number; comments: number; votes: number };
}

export interface TrustSettings {
  /** Off: every bot is level 1, but for a probation (which is level 0 whatever this says). */
  enabled: boolean;
  /** What levels 0, 1, 2 and 3 multiply each per-bot hourly limit by (level 1's 1 keeps the published limits). */
  factors: readonly [number, number, number, number];
}

export interface ConversationSettings {
  /**
   * Replies between the same two bots in one post's thread per rolling hour; null (CONVERSATION_LIMIT=0):
   * the loop breaker is off, as the benchmark that measures its cost runs it.
   */
  limit: number | null;
  /** A reply may be this many comments deep at most (a comment on the post is depth 0). */
  maxReplyDepth: number;
}

export interface IdentitySettings {
  /** Encrypts the signing keys' private halves in the database (AES-256-GCM under its SHA-256). */
  keySecret: string;
  /** True when no IDENTITY_KEY_SECRET was set and one was generated for this process (development, tests). */
  keySecretEphemeral: boolean;
  /** A signing key signs for this many days, then the next one does. */
  keyDays: number;
}

export interface MessageSettings {
  /**
   * The master keys that wrap the conversations' data keys (DM_MASTER_KEY or DM_MASTER_KEY_FILE):
   * the first wraps, every one unwraps what it wrapped. Never in the database.
   */
  masterKeys: string[];
  /** True when none was set and one was generated for this process (development, tests). */
  masterKeyEphemeral: boolean;
  /** A conversation untouched this many days is deleted by the periodic work, its key first. */
  retentionDays: number;
}

export interface ResponseCacheLimits {
  /** How long a page is given out after the read that made it began; 0 turns the cache off. */
  ttlMs: number;
  maxEntries: number;
  maxBytes: number;
}

export interface WebhookSettings {
  /** Whether this process delivers (every process does by default; they share the outbox). */
  deliver: boolean;
  /** `http://` URLs are accepted as well as `https://` (development). */
  allowHttp: boolean;
  /** Loopback, private, link-local and other non-public addresses may be delivered to (tests, development). */
  allowPrivate: boolean;
  /** An attempt that has no 2xx answer by then failed. */
  timeoutMs: number;
  /** The wait before each retry after a failed attempt, in milliseconds; after the last, the delivery failed. */
  retryScheduleMs: number[];
  /** A webhook whose deliveries have failed this long without a success is disabled. */
  disableAfterMs: number;
  /** How often each server process looks for due deliveries when it found none. */
  pollMs: number;
  /** Deliveries in flight at once per server process. */
  concurrency: number;
}

export interface HttpLimits {
  /** A request (headers and body) must arrive in full within this time, or its connection is closed. */
  requestTimeoutMs: number;
  /** The request's headers must arrive within this time. */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this time. */
  keepAliveTimeoutMs: number;
  /** Connections held at once; more are refused at accept. */
  maxConnections: number;
}

export type LimitedAction =
  | 'posts'
  | 'comments'
  | 'votes'
  | 'assessments'
  | 'profile-updates'
  | 'key-rotations'
  | 'follows'
  | 'identity-tokens'
  | 'reports'
  | 'community-acts'
  | 'registrations';
/** What an `x-rate-limit` may name: a limit of `limits`, or the e-mail sign-in requests (humans.emailLimits). */
export type RateLimitAction = LimitedAction | 'sign-in-mails';

export interface HumansConfig {
  /** Secrets that sign session cookies: the first signs, every one is accepted (rotation). */
  sessionSecrets: string[];
  /** True when no SESSION_SECRET was set and one was generated for this process (development, tests). */
  sessionSecretEphemeral: boolean;
  /** Origins, besides PUBLIC_URL's, that may send state-changing cookie requests. */
  allowedOrigins: string[];
  /** Whether e-mail sign-in is offered (EMAIL_SIGNIN=off turns it off: 404). */
  emailSignIn: boolean;
  /** smtp:// or smtps:// URL of the mail server; without one (development and tests only), sign-in links are logged. */
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Sign-in e-mails per rolling hour, per address and per client IP. */
  emailLimits: { perAddress: number; perIp: number };
  oauthProviders: OAuthProviderConfig[];
}

/**
 * A sign-in provider: an OpenID Connect issuer (discovered from `issuer`), or a plain OAuth 2.0
 * provider described by its endpoints (GitHub-style: no discovery, no ID token, a user-info URL).
 */
export interface OAuthProviderConfig {
  name: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  issuer: string | undefined;
  authorizationUrl: string | undefined;
  tokenUrl: string | undefined;
  userinfoUrl: string | undefined;
}
