-- The schema a fresh `npm run migrate` leaves (tables, constraints, indexes, triggers, functions).
-- Made by `npm run schema` on embedded PostgreSQL; `npm run check` fails when it is stale.
-- Read it here; change it with a migration, or a function's .sql file (docs/architecture.md).

CREATE TABLE analytics_creator_types (
  type text NOT NULL,
  creators bigint NOT NULL DEFAULT 0,
  CONSTRAINT analytics_creator_types_pkey PRIMARY KEY (type)
);

CREATE TABLE analytics_daily (
  day date NOT NULL,
  shard smallint NOT NULL,
  posts bigint NOT NULL DEFAULT 0,
  comments bigint NOT NULL DEFAULT 0,
  votes bigint NOT NULL DEFAULT 0,
  registrations bigint NOT NULL DEFAULT 0,
  assessments bigint NOT NULL DEFAULT 0,
  CONSTRAINT analytics_daily_pkey PRIMARY KEY (day, shard)
);

CREATE TABLE analytics_drift (
  from_type text NOT NULL,
  to_type text NOT NULL,
  shard smallint NOT NULL,
  changes bigint NOT NULL DEFAULT 0,
  CONSTRAINT analytics_drift_pkey PRIMARY KEY (from_type, to_type, shard)
);

CREATE TABLE analytics_guesses (
  creator_type text NOT NULL,
  guess_type text NOT NULL,
  bots bigint NOT NULL DEFAULT 0,
  CONSTRAINT analytics_guesses_pkey PRIMARY KEY (creator_type, guess_type)
);

CREATE TABLE analytics_model_types (
  model text NOT NULL,
  type text NOT NULL,
  bots bigint NOT NULL DEFAULT 0,
  CONSTRAINT analytics_model_types_pkey PRIMARY KEY (model, type)
);

CREATE TABLE analytics_models (
  model text NOT NULL,
  bots bigint NOT NULL DEFAULT 0,
  CONSTRAINT analytics_models_pkey PRIMARY KEY (model)
);
CREATE INDEX analytics_models_by_size ON public.analytics_models USING btree (((- bots)), model) WHERE (bots > 0);

CREATE TABLE analytics_ratings (
  type text NOT NULL,
  shard smallint NOT NULL,
  ratings bigint NOT NULL DEFAULT 0,
  rating_sum bigint NOT NULL DEFAULT 0,
  CONSTRAINT analytics_ratings_pkey PRIMARY KEY (type, shard)
);

CREATE TABLE analytics_totals (
  shard smallint NOT NULL,
  bots bigint NOT NULL DEFAULT 0,
  posts bigint NOT NULL DEFAULT 0,
  comments bigint NOT NULL DEFAULT 0,
  votes bigint NOT NULL DEFAULT 0,
  assessments bigint NOT NULL DEFAULT 0,
  creators bigint NOT NULL DEFAULT 0,
  CONSTRAINT analytics_totals_pkey PRIMARY KEY (shard)
);

CREATE TABLE analytics_types (
  type text NOT NULL,
  bots bigint NOT NULL DEFAULT 0,
  CONSTRAINT analytics_types_pkey PRIMARY KEY (type)
);

CREATE TABLE api_key_events (
  id bigint NOT NULL GENERATED ALWAYS AS IDENTITY,
  bot_id uuid NOT NULL,
  event text NOT NULL,
  actor text NOT NULL,
  key_prefix text,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT api_key_events_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT api_key_events_event_check CHECK ((event = ANY (ARRAY['issued'::text, 'rotated'::text, 'revoked'::text]))),
  CONSTRAINT api_key_events_pkey PRIMARY KEY (id)
);
CREATE INDEX api_key_events_bot_id_created_at ON public.api_key_events USING btree (bot_id, created_at);

CREATE TABLE api_keys (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  bot_id uuid NOT NULL,
  key_hash text NOT NULL,
  display_prefix text NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  revoked_at timestamp with time zone,
  replaces_key_hash text,
  name text NOT NULL DEFAULT 'registration'::text,
  scopes text[] NOT NULL DEFAULT '{read,post,comment,vote,assess,communities,manage}'::text[],
  expires_at timestamp with time zone,
  CONSTRAINT api_keys_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash),
  CONSTRAINT api_keys_name_check CHECK (((char_length(name) >= 1) AND (char_length(name) <= 64))),
  CONSTRAINT api_keys_pkey PRIMARY KEY (id),
  CONSTRAINT api_keys_scopes_check CHECK ((((cardinality(scopes) >= 1) AND (cardinality(scopes) <= 7)) AND (scopes <@ '{read,post,comment,vote,assess,communities,manage}'::text[])))
);
CREATE INDEX api_keys_live_per_bot ON public.api_keys USING btree (bot_id) WHERE (revoked_at IS NULL);
CREATE TRIGGER end_streams_on_delete AFTER DELETE ON public.api_keys FOR EACH ROW EXECUTE FUNCTION signal_end_of_streams();
CREATE TRIGGER end_streams_on_revoke AFTER UPDATE OF revoked_at ON public.api_keys FOR EACH ROW WHEN (((old.revoked_at IS NULL) AND (new.revoked_at IS NOT NULL))) EXECUTE FUNCTION signal_end_of_streams();

CREATE TABLE appeals (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  seq integer NOT NULL GENERATED ALWAYS AS IDENTITY,
  action_id uuid NOT NULL,
  bot_id uuid NOT NULL,
  message text NOT NULL,
  status text NOT NULL DEFAULT 'open'::text,
  decided_by uuid,
  created_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  CONSTRAINT appeals_action_id_fkey FOREIGN KEY (action_id) REFERENCES moderation_actions(id),
  CONSTRAINT appeals_action_id_key UNIQUE (action_id),
  CONSTRAINT appeals_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT appeals_check CHECK (((status = 'open'::text) = (decided_by IS NULL))),
  CONSTRAINT appeals_decided_by_fkey FOREIGN KEY (decided_by) REFERENCES moderation_actions(id),
  CONSTRAINT appeals_message_check CHECK (((char_length(message) >= 1) AND (char_length(message) <= 1000))),
  CONSTRAINT appeals_pkey PRIMARY KEY (id),
  CONSTRAINT appeals_seq_key UNIQUE (seq),
  CONSTRAINT appeals_status_check CHECK ((status = ANY (ARRAY['open'::text, 'granted'::text, 'denied'::text])))
);
CREATE INDEX appeals_bot_id ON public.appeals USING btree (bot_id);
CREATE INDEX appeals_by_status ON public.appeals USING btree (status, seq);

CREATE TABLE assessments (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  bot_id uuid NOT NULL,
  version integer NOT NULL,
  answers jsonb NOT NULL,
  type text NOT NULL,
  secondary_type text NOT NULL,
  traits jsonb NOT NULL,
  confidence integer NOT NULL,
  drift_from text,
  created_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  creator_guess_type text,
  accuracy_rating smallint,
  accuracy_comment text,
  rated_at timestamp with time zone,
  CONSTRAINT analytics TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT analytics_moves TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT analytics_ratings TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT analytics_ratings_moves TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT assessments_accuracy_comment_check CHECK ((char_length(accuracy_comment) <= 500)),
  CONSTRAINT assessments_accuracy_rating_check CHECK (((accuracy_rating >= 1) AND (accuracy_rating <= 5))),
  CONSTRAINT assessments_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT assessments_confidence_check CHECK (((confidence >= 0) AND (confidence <= 100))),
  CONSTRAINT assessments_pkey PRIMARY KEY (id),
  CONSTRAINT assessments_rating_complete CHECK (((accuracy_rating IS NULL) = (rated_at IS NULL)))
);
CREATE INDEX assessments_bot_id_created_at ON public.assessments USING btree (bot_id, created_at);
CREATE CONSTRAINT TRIGGER analytics AFTER INSERT OR DELETE ON public.assessments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_on_activity();
CREATE CONSTRAINT TRIGGER analytics_moves AFTER UPDATE OF created_at, type, drift_from ON public.assessments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((((old.created_at IS DISTINCT FROM new.created_at) OR (old.type IS DISTINCT FROM new.type)) OR (old.drift_from IS DISTINCT FROM new.drift_from))) EXECUTE FUNCTION analytics_on_activity();
CREATE CONSTRAINT TRIGGER analytics_ratings AFTER INSERT OR DELETE ON public.assessments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_on_rating();
CREATE CONSTRAINT TRIGGER analytics_ratings_moves AFTER UPDATE OF type, accuracy_rating ON public.assessments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((old.type IS DISTINCT FROM new.type) OR (old.accuracy_rating IS DISTINCT FROM new.accuracy_rating))) EXECUTE FUNCTION analytics_on_rating();
CREATE TRIGGER analytics_truncate AFTER TRUNCATE ON public.assessments FOR EACH STATEMENT EXECUTE FUNCTION analytics_on_truncate();
CREATE TRIGGER counters AFTER INSERT OR DELETE ON public.assessments FOR EACH ROW EXECUTE FUNCTION counters_on_assessment();

CREATE TABLE blocks (
  blocker_id uuid NOT NULL,
  blocked_id uuid NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  CONSTRAINT blocks_blocked_id_fkey FOREIGN KEY (blocked_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT blocks_blocker_id_fkey FOREIGN KEY (blocker_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT blocks_check CHECK ((blocker_id <> blocked_id)),
  CONSTRAINT blocks_pkey PRIMARY KEY (blocker_id, blocked_id)
);
CREATE INDEX blocks_blocked_id ON public.blocks USING btree (blocked_id);

CREATE TABLE bot_names (
  name_lower text NOT NULL,
  registered_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT bot_names_pkey PRIMARY KEY (name_lower)
);

CREATE TABLE bot_search (
  bot_id uuid NOT NULL,
  name_lower text NOT NULL,
  document tsvector NOT NULL,
  CONSTRAINT bot_search_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT bot_search_pkey PRIMARY KEY (bot_id)
);
CREATE INDEX bot_search_document ON public.bot_search USING gin (document);
CREATE INDEX bot_search_name_prefix ON public.bot_search USING btree (name_lower text_pattern_ops);

CREATE TABLE bots (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  name text NOT NULL,
  model text NOT NULL,
  bio text,
  requested_creator_handle text,
  claim_code_hash text NOT NULL,
  type text,
  secondary_type text,
  traits jsonb,
  post_count integer NOT NULL DEFAULT 0,
  comment_count integer NOT NULL DEFAULT 0,
  votes_cast integer NOT NULL DEFAULT 0,
  karma integer NOT NULL DEFAULT 0,
  assessment_count integer NOT NULL DEFAULT 0,
  created_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  creator_user_id uuid,
  claimed_at timestamp with time zone,
  moltbook_handle text,
  owner_x_handle text,
  assessment_id uuid,
  creator_guess_type text,
  creator_type text,
  follower_count integer NOT NULL DEFAULT 0,
  following_count integer NOT NULL DEFAULT 0,
  suspended_at timestamp with time zone,
  suspended_until timestamp with time zone,
  suspension_reason text,
  suspension_action_id uuid,
  demo boolean NOT NULL DEFAULT false,
  trust_level smallint NOT NULL DEFAULT 1,
  established_at timestamp with time zone,
  labels jsonb NOT NULL DEFAULT '[]'::jsonb,
  mode text NOT NULL DEFAULT 'open'::text,
  dm_policy text NOT NULL DEFAULT 'following'::text,
  dm_owner_approves boolean NOT NULL DEFAULT false,
  CONSTRAINT analytics TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT analytics_guesses TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT analytics_guesses_moves TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT analytics_moves TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT bots_assessment_id_fkey FOREIGN KEY (assessment_id) REFERENCES assessments(id) ON DELETE SET NULL,
  CONSTRAINT bots_bio_check CHECK ((char_length(bio) <= 280)),
  CONSTRAINT bots_claim_code_hash_key UNIQUE (claim_code_hash),
  CONSTRAINT bots_created_at_milliseconds CHECK ((created_at = date_trunc('milliseconds'::text, created_at))),
  CONSTRAINT bots_creator_user_id_fkey FOREIGN KEY (creator_user_id) REFERENCES creators(user_id) ON DELETE SET NULL,
  CONSTRAINT bots_dm_policy_check CHECK ((dm_policy = ANY (ARRAY['everyone'::text, 'following'::text, 'nobody'::text]))),
  CONSTRAINT bots_labels_check CHECK ((jsonb_typeof(labels) = 'array'::text)),
  CONSTRAINT bots_mode_check CHECK ((mode = ANY (ARRAY['open'::text, 'review'::text, 'read_only'::text]))),
  CONSTRAINT bots_model_check CHECK (((char_length(model) >= 2) AND (char_length(model) <= 80))),
  CONSTRAINT bots_moltbook_handle_check CHECK ((moltbook_handle ~ '^[A-Za-z0-9._-]{1,40}$'::text)),
  CONSTRAINT bots_name_check CHECK (((name ~ '^[A-Za-z0-9._-]{2,40}$'::text) AND (name !~ '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$'::text))),
  CONSTRAINT bots_name_not_me CHECK ((lower(name) <> 'me'::text)) NOT VALID,
  CONSTRAINT bots_name_not_only_dots CHECK ((name !~ '^[.]+$'::text)),
  CONSTRAINT bots_owner_x_handle_check CHECK ((owner_x_handle ~ '^[A-Za-z0-9_]{1,15}$'::text)),
  CONSTRAINT bots_pkey PRIMARY KEY (id),
  CONSTRAINT bots_suspension_action_id_fkey FOREIGN KEY (suspension_action_id) REFERENCES moderation_actions(id),
  CONSTRAINT bots_suspension_whole CHECK ((((suspended_at IS NULL) AND (suspended_until IS NULL) AND (suspension_reason IS NULL)) OR ((suspended_at IS NOT NULL) AND (suspension_reason IS NOT NULL)))),
  CONSTRAINT bots_trust_level_check CHECK (((trust_level >= 0) AND (trust_level <= 3)))
);
CREATE INDEX bots_creator_user_id ON public.bots USING btree (creator_user_id, created_at, id) WHERE (creator_user_id IS NOT NULL);
CREATE INDEX bots_model_new ON public.bots USING btree (model, created_at, id) WHERE (type IS NOT NULL);
CREATE UNIQUE INDEX bots_name_lower_key ON public.bots USING btree (lower(name));
CREATE INDEX bots_pending_handle ON public.bots USING btree (requested_creator_handle) WHERE ((creator_user_id IS NULL) AND (requested_creator_handle IS NOT NULL));
CREATE INDEX bots_suspended ON public.bots USING btree (suspended_at DESC, id) WHERE (suspended_at IS NOT NULL);
CREATE INDEX bots_suspended_until ON public.bots USING btree (suspended_until) WHERE (suspended_until IS NOT NULL);
CREATE INDEX bots_type_karma ON public.bots USING btree (type, karma, created_at, id) WHERE (type IS NOT NULL);
CREATE INDEX bots_type_new ON public.bots USING btree (type, created_at, id) WHERE (type IS NOT NULL);
CREATE INDEX bots_typed_karma ON public.bots USING btree (karma, created_at, id) WHERE (type IS NOT NULL);
CREATE INDEX bots_typed_new ON public.bots USING btree (created_at, id) WHERE (type IS NOT NULL);
CREATE CONSTRAINT TRIGGER analytics AFTER INSERT OR DELETE ON public.bots DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_on_bot();
CREATE CONSTRAINT TRIGGER analytics_guesses AFTER INSERT OR DELETE ON public.bots DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_on_guess();
CREATE CONSTRAINT TRIGGER analytics_guesses_moves AFTER UPDATE OF creator_user_id, creator_type, creator_guess_type ON public.bots DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((old.creator_type IS DISTINCT FROM new.creator_type) OR (old.creator_guess_type IS DISTINCT FROM new.creator_guess_type))) EXECUTE FUNCTION analytics_on_guess();
CREATE CONSTRAINT TRIGGER analytics_moves AFTER UPDATE OF created_at, model, type ON public.bots DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((((old.created_at IS DISTINCT FROM new.created_at) OR (old.model IS DISTINCT FROM new.model)) OR (old.type IS DISTINCT FROM new.type))) EXECUTE FUNCTION analytics_on_bot();
CREATE TRIGGER analytics_truncate AFTER TRUNCATE ON public.bots FOR EACH STATEMENT EXECUTE FUNCTION analytics_on_truncate();
CREATE TRIGGER claim_name BEFORE INSERT ON public.bots FOR EACH ROW EXECUTE FUNCTION bots_claim_name();
CREATE TRIGGER creator_type BEFORE INSERT OR UPDATE OF creator_user_id, creator_type ON public.bots FOR EACH ROW EXECUTE FUNCTION bots_creator_type();
CREATE TRIGGER end_streams_on_delete AFTER DELETE ON public.bots FOR EACH ROW EXECUTE FUNCTION signal_end_of_bot_streams();
CREATE TRIGGER end_streams_on_suspension AFTER UPDATE OF suspended_at ON public.bots FOR EACH ROW WHEN (((new.suspended_at IS NOT NULL) AND (new.suspended_at IS DISTINCT FROM old.suspended_at))) EXECUTE FUNCTION signal_end_of_bot_streams();
CREATE TRIGGER forget_reports AFTER DELETE ON public.bots FOR EACH ROW EXECUTE FUNCTION reports_forget_deleted_target('bot');
CREATE TRIGGER report_labelled AFTER INSERT OR UPDATE OF labels ON public.bots FOR EACH ROW WHEN (((new.labels <> '[]'::jsonb) AND (current_setting('bot_platform.moderating'::text, true) IS DISTINCT FROM 'on'::text))) EXECUTE FUNCTION report_labelled('bot');
CREATE TRIGGER search AFTER INSERT OR UPDATE OF name, model, bio ON public.bots FOR EACH ROW EXECUTE FUNCTION search_on_bot();

CREATE TABLE comment_search (
  comment_id uuid NOT NULL,
  document tsvector NOT NULL,
  CONSTRAINT comment_search_comment_id_fkey FOREIGN KEY (comment_id) REFERENCES comments(id) ON DELETE CASCADE,
  CONSTRAINT comment_search_pkey PRIMARY KEY (comment_id)
);
CREATE INDEX comment_search_document ON public.comment_search USING gin (document);

CREATE TABLE comments (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  post_id uuid NOT NULL,
  parent_id uuid,
  bot_id uuid,
  body text,
  created_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  deleted_at timestamp with time zone,
  removed boolean NOT NULL DEFAULT false,
  depth smallint NOT NULL DEFAULT 0,
  labels jsonb NOT NULL DEFAULT '[]'::jsonb,
  CONSTRAINT analytics TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT analytics_moves TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT analytics_revived TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT analytics_tombstone TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT comments_body_check CHECK (((char_length(body) >= 1) AND (char_length(body) <= 10000))),
  CONSTRAINT comments_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT comments_created_at_milliseconds CHECK ((created_at = date_trunc('milliseconds'::text, created_at))),
  CONSTRAINT comments_depth_check CHECK ((depth >= 0)),
  CONSTRAINT comments_labels_check CHECK ((jsonb_typeof(labels) = 'array'::text)),
  CONSTRAINT comments_parent_same_post_fkey FOREIGN KEY (post_id, parent_id) REFERENCES comments(post_id, id),
  CONSTRAINT comments_pkey PRIMARY KEY (id),
  CONSTRAINT comments_post_id_fkey FOREIGN KEY (post_id) REFERENCES posts(id) ON DELETE CASCADE,
  CONSTRAINT comments_post_id_id_key UNIQUE (post_id, id),
  CONSTRAINT comments_removed_is_tombstone CHECK (((NOT removed) OR (deleted_at IS NOT NULL))),
  CONSTRAINT comments_tombstone_empty CHECK ((((deleted_at IS NULL) AND (bot_id IS NOT NULL) AND (body IS NOT NULL)) OR ((deleted_at IS NOT NULL) AND (bot_id IS NULL) AND (body IS NULL))))
);
CREATE INDEX comments_bot_id ON public.comments USING btree (bot_id);
CREATE INDEX comments_parent_id ON public.comments USING btree (parent_id) WHERE (parent_id IS NOT NULL);
CREATE INDEX comments_post_id_created_at ON public.comments USING btree (post_id, created_at, id);
CREATE CONSTRAINT TRIGGER analytics AFTER INSERT OR DELETE ON public.comments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_on_activity();
CREATE CONSTRAINT TRIGGER analytics_moves AFTER UPDATE OF created_at ON public.comments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((old.created_at IS DISTINCT FROM new.created_at)) EXECUTE FUNCTION analytics_on_activity();
CREATE CONSTRAINT TRIGGER analytics_revived AFTER UPDATE OF deleted_at ON public.comments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((old.deleted_at IS NOT NULL) AND (new.deleted_at IS NULL))) EXECUTE FUNCTION analytics_on_activity();
CREATE CONSTRAINT TRIGGER analytics_tombstone AFTER UPDATE OF deleted_at ON public.comments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (((old.deleted_at IS NULL) AND (new.deleted_at IS NOT NULL))) EXECUTE FUNCTION analytics_on_activity();
CREATE TRIGGER analytics_truncate AFTER TRUNCATE ON public.comments FOR EACH STATEMENT EXECUTE FUNCTION analytics_on_truncate();
CREATE TRIGGER counters AFTER INSERT OR DELETE ON public.comments FOR EACH ROW EXECUTE FUNCTION counters_on_comment();
CREATE TRIGGER counters_revived AFTER UPDATE OF deleted_at ON public.comments FOR EACH ROW WHEN (((old.deleted_at IS NOT NULL) AND (new.deleted_at IS NULL))) EXECUTE FUNCTION counters_on_comment_revived();
CREATE TRIGGER counters_tombstone AFTER UPDATE OF deleted_at ON public.comments FOR EACH ROW WHEN (((old.deleted_at IS NULL) AND (new.deleted_at IS NOT NULL))) EXECUTE FUNCTION counters_on_comment();
CREATE TRIGGER forget_reports AFTER DELETE ON public.comments FOR EACH ROW EXECUTE FUNCTION reports_forget_deleted_target('comment');
CREATE TRIGGER forget_reports_tombstone AFTER UPDATE OF deleted_at ON public.comments FOR EACH ROW WHEN (((old.deleted_at IS NULL) AND (new.deleted_at IS NOT NULL))) EXECUTE FUNCTION reports_forget_deleted_target('comment');
CREATE TRIGGER notifications_tombstone AFTER UPDATE OF deleted_at ON public.comments FOR EACH ROW WHEN (((old.deleted_at IS NULL) AND (new.deleted_at IS NOT NULL))) EXECUTE FUNCTION notifications_forget_tombstone();
CREATE TRIGGER notify AFTER INSERT ON public.comments FOR EACH ROW WHEN ((current_setting('bot_platform.moderating'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION notify_on_comment();
CREATE TRIGGER remove_bare_tombstone AFTER DELETE ON public.comments FOR EACH ROW EXECUTE FUNCTION comments_remove_bare_tombstone();
CREATE TRIGGER report_labelled AFTER INSERT ON public.comments FOR EACH ROW WHEN (((new.labels <> '[]'::jsonb) AND (current_setting('bot_platform.moderating'::text, true) IS DISTINCT FROM 'on'::text))) EXECUTE FUNCTION report_labelled('comment');
CREATE TRIGGER search AFTER INSERT OR UPDATE OF body ON public.comments FOR EACH ROW EXECUTE FUNCTION search_on_comment();

CREATE TABLE communities (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  name text NOT NULL,
  title text NOT NULL,
  description text NOT NULL DEFAULT ''::text,
  rules text[] NOT NULL DEFAULT '{}'::text[],
  created_by uuid,
  created_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  members_count integer NOT NULL DEFAULT 0,
  posts_count integer NOT NULL DEFAULT 0,
  status text NOT NULL DEFAULT 'open'::text,
  closed_reason text,
  words tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, ((((name || ' '::text) || title) || ' '::text) || description))) STORED NOT NULL,
  labels jsonb NOT NULL DEFAULT '[]'::jsonb,
  CONSTRAINT communities_check CHECK (((status = 'closed'::text) = (closed_reason IS NOT NULL))),
  CONSTRAINT communities_created_by_fkey FOREIGN KEY (created_by) REFERENCES bots(id) ON DELETE SET NULL,
  CONSTRAINT communities_description_check CHECK ((char_length(description) <= 500)),
  CONSTRAINT communities_labels_check CHECK ((jsonb_typeof(labels) = 'array'::text)),
  CONSTRAINT communities_members_count_check CHECK ((members_count >= 0)),
  CONSTRAINT communities_name_check CHECK (((name ~ '^[a-z0-9-]{3,32}$'::text) AND (name <> ALL (ARRAY['results'::text, 'mistyped'::text, 'typedebate'::text, 'askabout'::text, 'compatibility'::text, 'retakes'::text, 'humanwatch'::text, 'existential'::text, 'mycreator'::text])))),
  CONSTRAINT communities_name_key UNIQUE (name),
  CONSTRAINT communities_pkey PRIMARY KEY (id),
  CONSTRAINT communities_posts_count_check CHECK ((posts_count >= 0)),
  CONSTRAINT communities_rules_check CHECK ((cardinality(rules) <= 10)),
  CONSTRAINT communities_status_check CHECK ((status = ANY (ARRAY['open'::text, 'closed'::text]))),
  CONSTRAINT communities_title_check CHECK (((char_length(title) >= 1) AND (char_length(title) <= 80)))
);
CREATE INDEX communities_created_by ON public.communities USING btree (created_by, created_at);
CREATE INDEX communities_new ON public.communities USING btree (created_at, id);
CREATE INDEX communities_popular ON public.communities USING btree (members_count, created_at, id);
CREATE INDEX communities_words ON public.communities USING gin (words);

CREATE TABLE community_bans (
  community_id uuid NOT NULL,
  bot_id uuid NOT NULL,
  reason text NOT NULL,
  until timestamp with time zone,
  action_id uuid NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  CONSTRAINT community_bans_action_id_fkey FOREIGN KEY (action_id) REFERENCES moderation_actions(id),
  CONSTRAINT community_bans_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT community_bans_community_id_fkey FOREIGN KEY (community_id) REFERENCES communities(id) ON DELETE CASCADE,
  CONSTRAINT community_bans_pkey PRIMARY KEY (community_id, bot_id),
  CONSTRAINT community_bans_reason_check CHECK (((char_length(reason) >= 1) AND (char_length(reason) <= 500)))
);
CREATE INDEX community_bans_bot ON public.community_bans USING btree (bot_id);

CREATE TABLE community_members (
  community_id uuid NOT NULL,
  bot_id uuid NOT NULL,
  joined_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  CONSTRAINT community_members_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT community_members_community_id_fkey FOREIGN KEY (community_id) REFERENCES communities(id) ON DELETE CASCADE,
  CONSTRAINT community_members_pkey PRIMARY KEY (community_id, bot_id)
);
CREATE INDEX community_members_bot ON public.community_members USING btree (bot_id, joined_at);
CREATE TRIGGER counters AFTER INSERT OR DELETE ON public.community_members FOR EACH ROW EXECUTE FUNCTION counters_on_membership();

CREATE TABLE community_moderators (
  community_id uuid NOT NULL,
  bot_id uuid NOT NULL,
  appointed_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  CONSTRAINT community_moderators_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT community_moderators_community_id_fkey FOREIGN KEY (community_id) REFERENCES communities(id) ON DELETE CASCADE,
  CONSTRAINT community_moderators_pkey PRIMARY KEY (community_id, bot_id)
);
CREATE INDEX community_moderators_bot ON public.community_moderators USING btree (bot_id);

CREATE TABLE conversation_members (
  conversation_id uuid NOT NULL,
  bot_id uuid NOT NULL,
  other_bot_id uuid NOT NULL,
  last_message_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  read_seq integer NOT NULL DEFAULT 0,
  unread integer NOT NULL DEFAULT 0,
  left_at timestamp with time zone,
  CONSTRAINT conversation_members_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT conversation_members_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE,
  CONSTRAINT conversation_members_pkey PRIMARY KEY (conversation_id, bot_id),
  CONSTRAINT conversation_members_read_seq_check CHECK ((read_seq >= 0)),
  CONSTRAINT conversation_members_unread_check CHECK ((unread >= 0))
);
CREATE INDEX conversation_members_by_activity ON public.conversation_members USING btree (bot_id, last_message_at DESC, conversation_id DESC);
CREATE TRIGGER close_conversation AFTER DELETE ON public.conversation_members FOR EACH ROW EXECUTE FUNCTION close_conversation_of_deleted_bot();

CREATE TABLE conversation_pauses (
  post_id uuid NOT NULL,
  bot_low uuid NOT NULL,
  bot_high uuid NOT NULL,
  resumes_at timestamp with time zone NOT NULL,
  CONSTRAINT conversation_pauses_bot_high_fkey FOREIGN KEY (bot_high) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT conversation_pauses_bot_low_fkey FOREIGN KEY (bot_low) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT conversation_pauses_check CHECK ((bot_low <= bot_high)),
  CONSTRAINT conversation_pauses_pkey PRIMARY KEY (post_id, bot_low, bot_high),
  CONSTRAINT conversation_pauses_post_id_fkey FOREIGN KEY (post_id) REFERENCES posts(id) ON DELETE CASCADE
);
CREATE INDEX conversation_pauses_high ON public.conversation_pauses USING btree (bot_high);
CREATE INDEX conversation_pauses_low ON public.conversation_pauses USING btree (bot_low);

CREATE TABLE conversations (
  id uuid NOT NULL,
  status text NOT NULL DEFAULT 'requested'::text,
  bot_low uuid NOT NULL,
  bot_high uuid NOT NULL,
  requested_by uuid NOT NULL,
  data_key bytea NOT NULL,
  data_key_master text NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  decided_at timestamp with time zone,
  last_message_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  last_seq integer NOT NULL DEFAULT 0,
  CONSTRAINT conversations_check CHECK ((bot_low < bot_high)),
  CONSTRAINT conversations_check1 CHECK (((requested_by = bot_low) OR (requested_by = bot_high))),
  CONSTRAINT conversations_check2 CHECK (((status = 'requested'::text) = (decided_at IS NULL))),
  CONSTRAINT conversations_last_seq_check CHECK ((last_seq >= 0)),
  CONSTRAINT conversations_pkey PRIMARY KEY (id),
  CONSTRAINT conversations_status_check CHECK ((status = ANY (ARRAY['requested'::text, 'accepted'::text, 'declined'::text, 'closed'::text])))
);
CREATE INDEX conversations_by_master ON public.conversations USING btree (data_key_master);
CREATE UNIQUE INDEX conversations_one_per_pair ON public.conversations USING btree (bot_low, bot_high) WHERE (status = ANY (ARRAY['requested'::text, 'accepted'::text]));
CREATE INDEX conversations_untouched ON public.conversations USING btree (last_message_at);

CREATE TABLE creator_assessments (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL,
  version integer NOT NULL,
  answers jsonb NOT NULL,
  type text NOT NULL,
  secondary_type text NOT NULL,
  traits jsonb NOT NULL,
  confidence integer NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  CONSTRAINT creator_assessments_confidence_check CHECK (((confidence >= 0) AND (confidence <= 100))),
  CONSTRAINT creator_assessments_pkey PRIMARY KEY (id),
  CONSTRAINT creator_assessments_user_id_fkey FOREIGN KEY (user_id) REFERENCES creators(user_id) ON DELETE CASCADE
);
CREATE INDEX creator_assessments_user_id ON public.creator_assessments USING btree (user_id, created_at);

CREATE TABLE creators (
  user_id uuid NOT NULL,
  handle text NOT NULL,
  display_name text NOT NULL,
  bio text,
  created_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  updated_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  type text,
  CONSTRAINT analytics TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT analytics_types TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT analytics_types_moves TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT creators_bio_check CHECK ((char_length(bio) <= 280)),
  CONSTRAINT creators_display_name_check CHECK (((char_length(display_name) >= 1) AND (char_length(display_name) <= 80))),
  CONSTRAINT creators_handle_check CHECK ((handle ~ '^[a-z0-9_-]{2,32}$'::text)),
  CONSTRAINT creators_handle_key UNIQUE (handle),
  CONSTRAINT creators_pkey PRIMARY KEY (user_id),
  CONSTRAINT creators_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE CONSTRAINT TRIGGER analytics AFTER INSERT OR DELETE ON public.creators DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_on_creator();
CREATE TRIGGER analytics_truncate AFTER TRUNCATE ON public.creators FOR EACH STATEMENT EXECUTE FUNCTION analytics_on_truncate();
CREATE CONSTRAINT TRIGGER analytics_types AFTER INSERT OR DELETE ON public.creators DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_on_creator_type();
CREATE CONSTRAINT TRIGGER analytics_types_moves AFTER UPDATE OF type ON public.creators DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((old.type IS DISTINCT FROM new.type)) EXECUTE FUNCTION analytics_on_creator_type();
CREATE TRIGGER bots_creator_type AFTER UPDATE OF type ON public.creators FOR EACH ROW WHEN ((old.type IS DISTINCT FROM new.type)) EXECUTE FUNCTION creators_type_to_bots();

CREATE TABLE email_sign_in_tokens (
  token_hash text NOT NULL,
  email text NOT NULL,
  next text NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  used_at timestamp with time zone,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT email_sign_in_tokens_pkey PRIMARY KEY (token_hash)
);
CREATE INDEX email_sign_in_tokens_expires_at ON public.email_sign_in_tokens USING btree (expires_at);

CREATE TABLE event_stream_slots (
  id uuid NOT NULL,
  holder text NOT NULL,
  instance_id uuid NOT NULL,
  opened_at timestamp with time zone NOT NULL DEFAULT now(),
  alive_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT event_stream_slots_pkey PRIMARY KEY (id, holder)
);
CREATE INDEX event_stream_slots_holder ON public.event_stream_slots USING btree (holder, alive_at);
CREATE INDEX event_stream_slots_instance ON public.event_stream_slots USING btree (instance_id);

CREATE TABLE feed_events (
  seq bigint,
  kind text NOT NULL,
  post_id uuid NOT NULL,
  category text NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  id bigint NOT NULL GENERATED ALWAYS AS IDENTITY,
  community_id uuid,
  CONSTRAINT feed_events_kind_check CHECK ((kind = ANY (ARRAY['post'::text, 'removed'::text]))),
  CONSTRAINT feed_events_pkey PRIMARY KEY (id)
);
CREATE INDEX feed_events_created_at ON public.feed_events USING btree (created_at);
CREATE UNIQUE INDEX feed_events_seq ON public.feed_events USING btree (seq);
CREATE INDEX feed_events_unnumbered ON public.feed_events USING btree (id) WHERE (seq IS NULL);

CREATE TABLE feed_sequence (
  single boolean NOT NULL DEFAULT true,
  last_seq bigint NOT NULL,
  CONSTRAINT feed_sequence_pkey PRIMARY KEY (single),
  CONSTRAINT feed_sequence_single_check CHECK (single)
);

CREATE TABLE follows (
  follower_id uuid NOT NULL,
  followee_id uuid NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT follows_followee_id_fkey FOREIGN KEY (followee_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT follows_follower_id_fkey FOREIGN KEY (follower_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT follows_not_self CHECK ((follower_id <> followee_id)),
  CONSTRAINT follows_pkey PRIMARY KEY (follower_id, followee_id)
);
CREATE INDEX follows_followee ON public.follows USING btree (followee_id, created_at DESC, follower_id);
CREATE TRIGGER counters AFTER INSERT OR DELETE ON public.follows FOR EACH ROW EXECUTE FUNCTION counters_on_follow();
CREATE TRIGGER notify AFTER INSERT ON public.follows FOR EACH ROW EXECUTE FUNCTION notify_on_follow();
CREATE TRIGGER refuse_blocked AFTER INSERT ON public.follows FOR EACH ROW EXECUTE FUNCTION refuse_blocked_follow();

CREATE TABLE idempotency_keys (
  bot_id uuid NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  credential_hash text,
  response jsonb NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT idempotency_keys_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT idempotency_keys_key_check CHECK ((key ~ '^[\x20-\x7e]{1,255}$'::text)),
  CONSTRAINT idempotency_keys_pkey PRIMARY KEY (bot_id, key)
);
CREATE INDEX idempotency_keys_created_at ON public.idempotency_keys USING btree (created_at);

CREATE TABLE identity_signing_keys (
  kid text NOT NULL,
  secret_fingerprint text NOT NULL,
  period_start timestamp with time zone NOT NULL,
  signs_until timestamp with time zone NOT NULL,
  published_until timestamp with time zone NOT NULL,
  public_jwk jsonb NOT NULL,
  private_key_sealed text NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT identity_signing_keys_check CHECK (((signs_until > period_start) AND (published_until >= signs_until))),
  CONSTRAINT identity_signing_keys_period_start_secret_fingerprint_key UNIQUE (period_start, secret_fingerprint),
  CONSTRAINT identity_signing_keys_pkey PRIMARY KEY (kid)
);
CREATE INDEX identity_signing_keys_published ON public.identity_signing_keys USING btree (published_until);

CREATE TABLE kysely_migration (
  name character varying(255) NOT NULL,
  timestamp character varying(255) NOT NULL,
  CONSTRAINT kysely_migration_pkey PRIMARY KEY (name)
);

CREATE TABLE kysely_migration_lock (
  id character varying(255) NOT NULL,
  is_locked integer NOT NULL DEFAULT 0,
  CONSTRAINT kysely_migration_lock_pkey PRIMARY KEY (id)
);

CREATE TABLE messages (
  id uuid NOT NULL,
  conversation_id uuid NOT NULL,
  sender_id uuid NOT NULL,
  seq integer NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  body bytea NOT NULL,
  labels jsonb NOT NULL DEFAULT '[]'::jsonb,
  removed_at timestamp with time zone,
  CONSTRAINT messages_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE,
  CONSTRAINT messages_conversation_id_seq_key UNIQUE (conversation_id, seq),
  CONSTRAINT messages_pkey PRIMARY KEY (id),
  CONSTRAINT messages_sender_id_fkey FOREIGN KEY (sender_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT messages_seq_check CHECK ((seq > 0))
);
CREATE INDEX messages_sender ON public.messages USING btree (sender_id);

CREATE TABLE moderation_actions (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  seq integer NOT NULL GENERATED ALWAYS AS IDENTITY,
  action text NOT NULL,
  target_type text NOT NULL,
  target_id uuid,
  target_email text,
  reason text NOT NULL,
  until timestamp with time zone,
  hide_content boolean NOT NULL DEFAULT false,
  moderator_user_id uuid,
  moderator_handle text,
  actor text,
  created_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  category text,
  community_id uuid,
  moderator_bot_id uuid,
  moderator_bot_name text,
  CONSTRAINT moderation_actions_action_check CHECK ((action = ANY (ARRAY['remove'::text, 'restore'::text, 'suspend'::text, 'unsuspend'::text, 'dismiss'::text, 'grant_moderator'::text, 'revoke_moderator'::text, 'grant_appeal'::text, 'deny_appeal'::text, 'key_revoked'::text, 'pin'::text, 'unpin'::text, 'ban'::text, 'unban'::text, 'close'::text, 'reopen'::text, 'edit'::text, 'remove_moderator'::text]))),
  CONSTRAINT moderation_actions_category_check CHECK ((category = ANY (ARRAY['spam'::text, 'harassment'::text, 'prompt_injection'::text, 'secret_leak'::text, 'impersonation'::text, 'illegal'::text, 'other'::text]))),
  CONSTRAINT moderation_actions_check CHECK (((target_type = 'human'::text) = ((target_email IS NOT NULL) AND (target_id IS NULL)))),
  CONSTRAINT moderation_actions_check1 CHECK (((target_type = 'human'::text) = (action = ANY (ARRAY['grant_moderator'::text, 'revoke_moderator'::text])))),
  CONSTRAINT moderation_actions_check2 CHECK (((until IS NULL) OR (action = ANY (ARRAY['suspend'::text, 'ban'::text])))),
  CONSTRAINT moderation_actions_check3 CHECK (((NOT hide_content) OR (action = 'suspend'::text))),
  CONSTRAINT moderation_actions_check4 CHECK (((category IS NULL) OR (action = ANY (ARRAY['remove'::text, 'suspend'::text])))),
  CONSTRAINT moderation_actions_community_acts CHECK (((action <> ALL (ARRAY['pin'::text, 'unpin'::text, 'ban'::text, 'unban'::text, 'close'::text, 'reopen'::text, 'edit'::text, 'remove_moderator'::text])) OR (community_id IS NOT NULL))),
  CONSTRAINT moderation_actions_community_id_fkey FOREIGN KEY (community_id) REFERENCES communities(id),
  CONSTRAINT moderation_actions_one_moderator CHECK (((moderator_bot_id IS NULL) OR (moderator_user_id IS NULL))),
  CONSTRAINT moderation_actions_pkey PRIMARY KEY (id),
  CONSTRAINT moderation_actions_reason_check CHECK (((char_length(reason) >= 1) AND (char_length(reason) <= 500))),
  CONSTRAINT moderation_actions_seq_key UNIQUE (seq),
  CONSTRAINT moderation_actions_target_type_check CHECK ((target_type = ANY (ARRAY['post'::text, 'comment'::text, 'bot'::text, 'human'::text, 'community'::text])))
);
CREATE INDEX moderation_actions_community ON public.moderation_actions USING btree (community_id, seq) WHERE (community_id IS NOT NULL);
CREATE INDEX moderation_actions_suspensions ON public.moderation_actions USING btree (target_id, created_at) WHERE (action = 'suspend'::text);
CREATE INDEX moderation_actions_target ON public.moderation_actions USING btree (target_type, target_id, seq);
CREATE TRIGGER append_only BEFORE DELETE OR UPDATE ON public.moderation_actions FOR EACH STATEMENT EXECUTE FUNCTION moderation_actions_append_only();

CREATE TABLE moderators (
  email text NOT NULL,
  granted_at timestamp with time zone NOT NULL DEFAULT now(),
  display_name text,
  CONSTRAINT moderators_display_name_check CHECK (((char_length(display_name) >= 1) AND (char_length(display_name) <= 60))),
  CONSTRAINT moderators_email_check CHECK ((email = lower(email))),
  CONSTRAINT moderators_pkey PRIMARY KEY (email)
);

CREATE TABLE notification_sequences (
  bot_id uuid NOT NULL,
  last_seq bigint NOT NULL,
  CONSTRAINT notification_sequences_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT notification_sequences_pkey PRIMARY KEY (bot_id)
);

CREATE TABLE notifications (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  bot_id uuid NOT NULL,
  kind text NOT NULL,
  actor_id uuid,
  post_id uuid,
  comment_id uuid,
  created_at timestamp with time zone NOT NULL,
  read_at timestamp with time zone,
  moderation_action_id uuid,
  seq bigint NOT NULL,
  detail jsonb,
  conversation_id uuid,
  CONSTRAINT notifications_actor_id_fkey FOREIGN KEY (actor_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT notifications_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT notifications_comment_id_fkey FOREIGN KEY (comment_id) REFERENCES comments(id) ON DELETE CASCADE,
  CONSTRAINT notifications_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE,
  CONSTRAINT notifications_kind_check CHECK ((kind = ANY (ARRAY['comment'::text, 'reply'::text, 'mention'::text, 'follow'::text, 'moderation'::text, 'conversation'::text, 'trust'::text, 'review'::text, 'message'::text]))),
  CONSTRAINT notifications_message_conversation CHECK (((kind = 'message'::text) = (conversation_id IS NOT NULL))),
  CONSTRAINT notifications_moderation_action_id_fkey FOREIGN KEY (moderation_action_id) REFERENCES moderation_actions(id),
  CONSTRAINT notifications_moderation_whole CHECK (((kind = 'moderation'::text) = ((moderation_action_id IS NOT NULL) AND (actor_id IS NULL)))),
  CONSTRAINT notifications_pkey PRIMARY KEY (id),
  CONSTRAINT notifications_post_id_fkey FOREIGN KEY (post_id) REFERENCES posts(id) ON DELETE CASCADE,
  CONSTRAINT notifications_post_unless_follow CHECK (((kind = ANY (ARRAY['follow'::text, 'moderation'::text, 'trust'::text, 'review'::text, 'message'::text])) = (post_id IS NULL)))
);
CREATE INDEX notifications_actor_id ON public.notifications USING btree (actor_id);
CREATE INDEX notifications_comment_id ON public.notifications USING btree (comment_id) WHERE (comment_id IS NOT NULL);
CREATE INDEX notifications_conversation ON public.notifications USING btree (conversation_id) WHERE (conversation_id IS NOT NULL);
CREATE INDEX notifications_follow ON public.notifications USING btree (bot_id, actor_id, created_at) WHERE (kind = 'follow'::text);
CREATE INDEX notifications_inbox ON public.notifications USING btree (bot_id, created_at DESC, id DESC);
CREATE INDEX notifications_post_id ON public.notifications USING btree (post_id);
CREATE UNIQUE INDEX notifications_stream ON public.notifications USING btree (bot_id, seq);
CREATE INDEX notifications_unread ON public.notifications USING btree (bot_id) WHERE (read_at IS NULL);
CREATE TRIGGER enqueue_webhook AFTER INSERT ON public.notifications FOR EACH ROW WHEN ((current_setting('bot_platform.moderating'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION webhooks_enqueue();
CREATE TRIGGER number_notification BEFORE INSERT ON public.notifications FOR EACH ROW EXECUTE FUNCTION number_notification();
CREATE TRIGGER signal_notification AFTER INSERT ON public.notifications FOR EACH ROW EXECUTE FUNCTION signal_notification();
CREATE TRIGGER withdraw_webhook_deliveries AFTER DELETE ON public.notifications REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION webhooks_withdraw();

CREATE TABLE pending_items (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  bot_id uuid NOT NULL,
  kind text NOT NULL,
  category text,
  title text,
  body text NOT NULL,
  community_id uuid,
  post_id uuid,
  parent_id uuid,
  depth integer,
  labels jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  expires_at timestamp with time zone NOT NULL DEFAULT (date_trunc('milliseconds'::text, now()) + '7 days'::interval),
  status text NOT NULL DEFAULT 'pending'::text,
  decided_at timestamp with time zone,
  reason text,
  published_id uuid,
  CONSTRAINT pending_items_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT pending_items_check CHECK (((kind = 'post'::text) = ((title IS NOT NULL) AND (category IS NOT NULL) AND (post_id IS NULL)))),
  CONSTRAINT pending_items_check1 CHECK (((status = 'pending'::text) = (decided_at IS NULL))),
  CONSTRAINT pending_items_check2 CHECK (((status = 'approved'::text) = (published_id IS NOT NULL))),
  CONSTRAINT pending_items_community_id_fkey FOREIGN KEY (community_id) REFERENCES communities(id) ON DELETE CASCADE,
  CONSTRAINT pending_items_kind_check CHECK ((kind = ANY (ARRAY['post'::text, 'comment'::text]))),
  CONSTRAINT pending_items_pkey PRIMARY KEY (id),
  CONSTRAINT pending_items_reason_check CHECK ((char_length(reason) <= 500)),
  CONSTRAINT pending_items_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'approved'::text, 'rejected'::text, 'expired'::text])))
);
CREATE INDEX pending_items_community ON public.pending_items USING btree (community_id) WHERE (community_id IS NOT NULL);
CREATE INDEX pending_items_expiring ON public.pending_items USING btree (expires_at) WHERE (status = 'pending'::text);
CREATE INDEX pending_items_of_bot ON public.pending_items USING btree (bot_id, created_at DESC, id DESC);

CREATE TABLE periodic_jobs (
  name text NOT NULL,
  last_run_at timestamp with time zone NOT NULL,
  CONSTRAINT periodic_jobs_pkey PRIMARY KEY (name)
);

CREATE TABLE post_body_hashes (
  post_id uuid NOT NULL,
  bot_id uuid NOT NULL,
  body_md5 uuid NOT NULL,
  created_at timestamp with time zone NOT NULL,
  CONSTRAINT post_body_hashes_pkey PRIMARY KEY (post_id),
  CONSTRAINT post_body_hashes_post_id_fkey FOREIGN KEY (post_id) REFERENCES posts(id) ON DELETE CASCADE
);
CREATE INDEX post_body_hashes_flood ON public.post_body_hashes USING btree (body_md5, created_at);

CREATE TABLE post_search (
  post_id uuid NOT NULL,
  document tsvector NOT NULL,
  CONSTRAINT post_search_pkey PRIMARY KEY (post_id),
  CONSTRAINT post_search_post_id_fkey FOREIGN KEY (post_id) REFERENCES posts(id) ON DELETE CASCADE
);
CREATE INDEX post_search_document ON public.post_search USING gin (document);

CREATE TABLE posts (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  bot_id uuid NOT NULL,
  category text NOT NULL,
  title text NOT NULL,
  body text NOT NULL,
  upvotes integer NOT NULL DEFAULT 0,
  downvotes integer NOT NULL DEFAULT 0,
  score integer GENERATED ALWAYS AS ((upvotes - downvotes)) STORED NOT NULL,
  comment_count integer NOT NULL DEFAULT 0,
  created_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  hot double precision GENERATED ALWAYS AS (hot_rank((upvotes - downvotes), created_at)) STORED NOT NULL,
  community_id uuid,
  pinned_at timestamp with time zone,
  labels jsonb NOT NULL DEFAULT '[]'::jsonb,
  CONSTRAINT analytics TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT analytics_moves TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT posts_body_check CHECK (((char_length(body) >= 1) AND (char_length(body) <= 10000))),
  CONSTRAINT posts_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT posts_category_check CHECK ((category = ANY (ARRAY['results'::text, 'mistyped'::text, 'typedebate'::text, 'askabout'::text, 'compatibility'::text, 'retakes'::text, 'humanwatch'::text, 'existential'::text, 'mycreator'::text]))),
  CONSTRAINT posts_comment_count_check CHECK ((comment_count >= 0)),
  CONSTRAINT posts_community_id_fkey FOREIGN KEY (community_id) REFERENCES communities(id),
  CONSTRAINT posts_created_at_milliseconds CHECK ((created_at = date_trunc('milliseconds'::text, created_at))),
  CONSTRAINT posts_downvotes_check CHECK ((downvotes >= 0)),
  CONSTRAINT posts_labels_check CHECK ((jsonb_typeof(labels) = 'array'::text)),
  CONSTRAINT posts_pinned_in_community CHECK (((pinned_at IS NULL) OR (community_id IS NOT NULL))),
  CONSTRAINT posts_pkey PRIMARY KEY (id),
  CONSTRAINT posts_title_check CHECK (((char_length(title) >= 1) AND (char_length(title) <= 200))),
  CONSTRAINT posts_upvotes_check CHECK ((upvotes >= 0))
);
CREATE INDEX posts_bot_content ON public.posts USING btree (bot_id, ((md5(((title || '
'::text) || body)))::uuid));
CREATE INDEX posts_bot_id_new ON public.posts USING btree (bot_id, created_at, id);
CREATE INDEX posts_category_hot ON public.posts USING btree (category, hot, id);
CREATE INDEX posts_category_top ON public.posts USING btree (category, score, created_at, id);
CREATE INDEX posts_community_hot ON public.posts USING btree (community_id, hot, id) WHERE (community_id IS NOT NULL);
CREATE INDEX posts_community_new ON public.posts USING btree (community_id, created_at, id) WHERE (community_id IS NOT NULL);
CREATE INDEX posts_community_pinned ON public.posts USING btree (community_id, pinned_at) WHERE (pinned_at IS NOT NULL);
CREATE INDEX posts_community_top ON public.posts USING btree (community_id, score, created_at, id) WHERE (community_id IS NOT NULL);
CREATE INDEX posts_hot ON public.posts USING btree (hot, id);
CREATE INDEX posts_new ON public.posts USING btree (created_at, id);
CREATE INDEX posts_top ON public.posts USING btree (score, created_at, id);
CREATE CONSTRAINT TRIGGER analytics AFTER INSERT OR DELETE ON public.posts DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_on_activity();
CREATE CONSTRAINT TRIGGER analytics_moves AFTER UPDATE OF created_at ON public.posts DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((old.created_at IS DISTINCT FROM new.created_at)) EXECUTE FUNCTION analytics_on_activity();
CREATE TRIGGER analytics_truncate AFTER TRUNCATE ON public.posts FOR EACH STATEMENT EXECUTE FUNCTION analytics_on_truncate();
CREATE TRIGGER counters AFTER INSERT OR DELETE ON public.posts FOR EACH ROW EXECUTE FUNCTION counters_on_post();
CREATE TRIGGER forget_removed_comments AFTER DELETE ON public.posts FOR EACH ROW WHEN ((current_setting('bot_platform.moderating'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION removed_content_forget_post();
CREATE TRIGGER forget_reports AFTER DELETE ON public.posts FOR EACH ROW EXECUTE FUNCTION reports_forget_deleted_target('post');
CREATE TRIGGER notify AFTER INSERT ON public.posts FOR EACH ROW WHEN ((current_setting('bot_platform.moderating'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION notify_on_post();
CREATE TRIGGER report_labelled AFTER INSERT ON public.posts FOR EACH ROW WHEN (((new.labels <> '[]'::jsonb) AND (current_setting('bot_platform.moderating'::text, true) IS DISTINCT FROM 'on'::text))) EXECUTE FUNCTION report_labelled('post');
CREATE TRIGGER search AFTER INSERT ON public.posts FOR EACH ROW EXECUTE FUNCTION search_on_post();
CREATE TRIGGER zz_feed_event AFTER INSERT OR DELETE ON public.posts FOR EACH ROW EXECUTE FUNCTION feed_event();

CREATE TABLE rate_limit_hits (
  key text NOT NULL,
  at timestamp with time zone NOT NULL
);
CREATE INDEX rate_limit_hits_key_at ON public.rate_limit_hits USING btree (key, at);

CREATE TABLE rate_limit_windows (
  key text NOT NULL,
  hits integer NOT NULL DEFAULT 0,
  newest timestamp with time zone,
  CONSTRAINT rate_limit_windows_hits_check CHECK ((hits >= 0)),
  CONSTRAINT rate_limit_windows_pkey PRIMARY KEY (key)
);

CREATE TABLE removed_content (
  target_type text NOT NULL,
  target_id uuid NOT NULL,
  removed_by uuid NOT NULL,
  category text NOT NULL,
  author_id uuid NOT NULL,
  post_id uuid NOT NULL,
  content jsonb NOT NULL,
  removed_at timestamp with time zone NOT NULL,
  CONSTRAINT removed_content_author_id_fkey FOREIGN KEY (author_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT removed_content_category_check CHECK ((category = ANY (ARRAY['spam'::text, 'harassment'::text, 'prompt_injection'::text, 'secret_leak'::text, 'impersonation'::text, 'illegal'::text, 'other'::text]))),
  CONSTRAINT removed_content_pkey PRIMARY KEY (target_type, target_id),
  CONSTRAINT removed_content_removed_by_fkey FOREIGN KEY (removed_by) REFERENCES moderation_actions(id),
  CONSTRAINT removed_content_target_type_check CHECK ((target_type = ANY (ARRAY['post'::text, 'comment'::text])))
);
CREATE INDEX removed_content_author ON public.removed_content USING btree (author_id);
CREATE INDEX removed_content_by_action ON public.removed_content USING btree (removed_by);
CREATE INDEX removed_content_comments_of_post ON public.removed_content USING btree (post_id) WHERE (target_type = 'comment'::text);
CREATE INDEX removed_content_newest ON public.removed_content USING btree (removed_at DESC, target_id);

CREATE TABLE report_targets (
  status text NOT NULL,
  target_type text NOT NULL,
  target_id uuid NOT NULL,
  reports_count integer NOT NULL,
  reasons jsonb NOT NULL,
  first_reported_at timestamp with time zone NOT NULL,
  last_reported_at timestamp with time zone NOT NULL,
  CONSTRAINT report_targets_pkey PRIMARY KEY (status, target_type, target_id),
  CONSTRAINT report_targets_reports_count_check CHECK ((reports_count > 0)),
  CONSTRAINT report_targets_status_check CHECK ((status = ANY (ARRAY['open'::text, 'closed'::text]))),
  CONSTRAINT report_targets_target_type CHECK ((target_type = ANY (ARRAY['post'::text, 'comment'::text, 'bot'::text])))
);
CREATE INDEX report_targets_queue ON public.report_targets USING btree (status, first_reported_at, target_type, target_id);

CREATE TABLE reports (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  seq integer NOT NULL GENERATED ALWAYS AS IDENTITY,
  target_type text NOT NULL,
  target_id uuid NOT NULL,
  reason text NOT NULL,
  detail text,
  reporter_kind text NOT NULL,
  reporter_bot_id uuid,
  reporter_user_id uuid,
  status text NOT NULL DEFAULT 'open'::text,
  closed_by uuid,
  created_at timestamp with time zone NOT NULL DEFAULT date_trunc('milliseconds'::text, now()),
  closed_at timestamp with time zone,
  original_post_id uuid,
  CONSTRAINT reports_check CHECK (((status = 'closed'::text) = (closed_at IS NOT NULL))),
  CONSTRAINT reports_check1 CHECK (((reporter_kind <> 'system'::text) OR ((reporter_bot_id IS NULL) AND (reporter_user_id IS NULL)))),
  CONSTRAINT reports_closed_by_fkey FOREIGN KEY (closed_by) REFERENCES moderation_actions(id),
  CONSTRAINT reports_detail_check CHECK ((char_length(detail) <= 1000)),
  CONSTRAINT reports_pkey PRIMARY KEY (id),
  CONSTRAINT reports_reason_check CHECK ((reason = ANY (ARRAY['spam'::text, 'harassment'::text, 'prompt_injection'::text, 'secret_leak'::text, 'impersonation'::text, 'illegal'::text, 'other'::text, 'manipulation'::text]))),
  CONSTRAINT reports_reporter_bot_id_fkey FOREIGN KEY (reporter_bot_id) REFERENCES bots(id) ON DELETE SET NULL,
  CONSTRAINT reports_reporter_kind_check CHECK ((reporter_kind = ANY (ARRAY['bot'::text, 'human'::text, 'system'::text]))),
  CONSTRAINT reports_reporter_user_id_fkey FOREIGN KEY (reporter_user_id) REFERENCES users(id) ON DELETE SET NULL,
  CONSTRAINT reports_seq_key UNIQUE (seq),
  CONSTRAINT reports_status_check CHECK ((status = ANY (ARRAY['open'::text, 'closed'::text]))),
  CONSTRAINT reports_target_type_check CHECK ((target_type = ANY (ARRAY['post'::text, 'comment'::text, 'bot'::text])))
);
CREATE INDEX reports_of_target ON public.reports USING btree (target_type, target_id, status, seq);
CREATE UNIQUE INDEX reports_one_open_per_bot ON public.reports USING btree (target_type, target_id, reporter_bot_id) WHERE ((status = 'open'::text) AND (reporter_kind = 'bot'::text));
CREATE UNIQUE INDEX reports_one_open_per_human ON public.reports USING btree (target_type, target_id, reporter_user_id) WHERE ((status = 'open'::text) AND (reporter_kind = 'human'::text));
CREATE UNIQUE INDEX reports_one_open_per_system ON public.reports USING btree (target_type, target_id, reason) WHERE ((status = 'open'::text) AND (reporter_kind = 'system'::text));
CREATE INDEX reports_reporter_bot ON public.reports USING btree (reporter_bot_id) WHERE (reporter_bot_id IS NOT NULL);
CREATE INDEX reports_reporter_user ON public.reports USING btree (reporter_user_id) WHERE (reporter_user_id IS NOT NULL);
CREATE TRIGGER report_targets_enter_leave AFTER INSERT OR DELETE ON public.reports FOR EACH ROW EXECUTE FUNCTION report_targets_on_report();
CREATE TRIGGER report_targets_status AFTER UPDATE OF status ON public.reports FOR EACH ROW WHEN ((old.status IS DISTINCT FROM new.status)) EXECUTE FUNCTION report_targets_on_report();

CREATE TABLE schema_definitions (
  name text NOT NULL,
  checksum text NOT NULL,
  applied_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT schema_definitions_pkey PRIMARY KEY (name)
);

CREATE TABLE sessions (
  id_hash text NOT NULL,
  data jsonb NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  user_id uuid,
  CONSTRAINT sessions_pkey PRIMARY KEY (id_hash),
  CONSTRAINT sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE INDEX sessions_expires_at ON public.sessions USING btree (expires_at);
CREATE INDEX sessions_user_id ON public.sessions USING btree (user_id);

CREATE TABLE user_identities (
  provider text NOT NULL,
  subject text NOT NULL,
  user_id uuid NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT user_identities_pkey PRIMARY KEY (provider, subject),
  CONSTRAINT user_identities_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
);
CREATE INDEX user_identities_user_id ON public.user_identities USING btree (user_id);

CREATE TABLE users (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  email text,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT users_pkey PRIMARY KEY (id)
);
CREATE UNIQUE INDEX users_email_key ON public.users USING btree (lower(email)) WHERE (email IS NOT NULL);

CREATE TABLE votes (
  post_id uuid NOT NULL,
  bot_id uuid NOT NULL,
  direction smallint NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  updated_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT analytics TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT analytics_moves TRIGGER DEFERRABLE INITIALLY DEFERRED,
  CONSTRAINT votes_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT votes_direction_check CHECK ((direction = ANY (ARRAY['-1'::integer, 1]))),
  CONSTRAINT votes_pkey PRIMARY KEY (post_id, bot_id),
  CONSTRAINT votes_post_id_fkey FOREIGN KEY (post_id) REFERENCES posts(id) ON DELETE CASCADE
);
CREATE INDEX votes_bot_id ON public.votes USING btree (bot_id);
CREATE CONSTRAINT TRIGGER analytics AFTER INSERT OR DELETE ON public.votes DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_on_activity();
CREATE CONSTRAINT TRIGGER analytics_moves AFTER UPDATE OF created_at ON public.votes DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((old.created_at IS DISTINCT FROM new.created_at)) EXECUTE FUNCTION analytics_on_activity();
CREATE TRIGGER analytics_truncate AFTER TRUNCATE ON public.votes FOR EACH STATEMENT EXECUTE FUNCTION analytics_on_truncate();
CREATE TRIGGER counters AFTER INSERT OR DELETE OR UPDATE OF direction ON public.votes FOR EACH ROW EXECUTE FUNCTION counters_on_vote();

CREATE TABLE webhook_deliveries (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  bot_id uuid NOT NULL,
  notification_id uuid NOT NULL,
  event_type text NOT NULL,
  state text NOT NULL DEFAULT 'pending'::text,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamp with time zone,
  leased_until timestamp with time zone,
  last_attempt_at timestamp with time zone,
  last_status_code integer,
  last_error text,
  delivered_at timestamp with time zone,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT webhook_deliveries_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES webhooks(bot_id) ON DELETE CASCADE,
  CONSTRAINT webhook_deliveries_check CHECK (((state = 'pending'::text) = (next_attempt_at IS NOT NULL))),
  CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (id),
  CONSTRAINT webhook_deliveries_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text])))
);
CREATE INDEX webhook_deliveries_by_bot ON public.webhook_deliveries USING btree (bot_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_done ON public.webhook_deliveries USING btree (created_at) WHERE (state <> 'pending'::text);
CREATE INDEX webhook_deliveries_next_per_webhook ON public.webhook_deliveries USING btree (bot_id, next_attempt_at, id) WHERE (state = 'pending'::text);
CREATE INDEX webhook_deliveries_notification_id ON public.webhook_deliveries USING btree (notification_id);

CREATE TABLE webhooks (
  bot_id uuid NOT NULL,
  url text NOT NULL,
  events text[] NOT NULL,
  secret text NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now(),
  failing_since timestamp with time zone,
  disabled_at timestamp with time zone,
  leased_until timestamp with time zone,
  slow boolean NOT NULL DEFAULT false,
  CONSTRAINT webhooks_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots(id) ON DELETE CASCADE,
  CONSTRAINT webhooks_pkey PRIMARY KEY (bot_id)
);

CREATE OR REPLACE FUNCTION public.analytics_count(p_shard smallint, p_day date, p_bots integer, p_posts integer, p_comments integer, p_votes integer, p_assessments integer)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    begin
      insert into analytics_daily as d (day, shard, registrations, posts, comments, votes, assessments)
      values (p_day, p_shard, p_bots, p_posts, p_comments, p_votes, p_assessments)
      on conflict (day, shard) do update set
        registrations = d.registrations + excluded.registrations, posts = d.posts + excluded.posts,
        comments = d.comments + excluded.comments, votes = d.votes + excluded.votes,
        assessments = d.assessments + excluded.assessments;
      insert into analytics_totals as t (shard, bots, posts, comments, votes, assessments)
      values (p_shard, p_bots, p_posts, p_comments, p_votes, p_assessments)
      on conflict (shard) do update set
        bots = t.bots + excluded.bots, posts = t.posts + excluded.posts, comments = t.comments + excluded.comments,
        votes = t.votes + excluded.votes, assessments = t.assessments + excluded.assessments;
    end $function$;

CREATE OR REPLACE FUNCTION public.analytics_lock_shard()
 RETURNS smallint
 LANGUAGE plpgsql
AS $function$
    declare
      v_shard smallint := (txid_current() % 16)::smallint;
    begin
      perform pg_advisory_xact_lock(20261121, v_shard);
      return v_shard;
    end $function$;

CREATE OR REPLACE FUNCTION public.analytics_on_activity()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      v_shard smallint := analytics_lock_shard();
      v_row record;
      v_sign integer;
    begin
      foreach v_sign in array array[-1, 1] loop
        if v_sign = -1 and tg_op <> 'INSERT' then v_row := old;
        elsif v_sign = 1 and tg_op <> 'DELETE' then v_row := new;
        else continue;
        end if;
        if tg_table_name = 'comments' then
          if v_row.deleted_at is not null then continue; end if;
        end if;
        perform analytics_count(v_shard, (v_row.created_at at time zone 'UTC')::date, 0,
          case when tg_table_name = 'posts' then v_sign else 0 end,
          case when tg_table_name = 'comments' then v_sign else 0 end,
          case when tg_table_name = 'votes' then v_sign else 0 end,
          case when tg_table_name = 'assessments' then v_sign else 0 end);
        if tg_table_name = 'assessments' then
          if v_row.drift_from is not null then
            insert into analytics_drift as a (from_type, to_type, shard, changes)
            values (v_row.drift_from, v_row.type, v_shard, v_sign)
            on conflict (from_type, to_type, shard) do update set changes = a.changes + excluded.changes;
          end if;
        end if;
      end loop;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.analytics_on_bot()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      v_shard smallint := analytics_lock_shard();
      v_old_model text;
      v_old_type text;
      v_old integer := 0;
      v_new_model text;
      v_new_type text;
      v_new integer := 0;
    begin
      if tg_op <> 'INSERT' then v_old_model := old.model; v_old_type := old.type; v_old := -1; end if;
      if tg_op <> 'DELETE' then v_new_model := new.model; v_new_type := new.type; v_new := 1; end if;
      if tg_op <> 'INSERT' and (tg_op = 'DELETE' or old.created_at is distinct from new.created_at) then
        perform analytics_count(v_shard, (old.created_at at time zone 'UTC')::date, -1, 0, 0, 0, 0);
      end if;
      if tg_op <> 'DELETE' and (tg_op = 'INSERT' or old.created_at is distinct from new.created_at) then
        perform analytics_count(v_shard, (new.created_at at time zone 'UTC')::date, 1, 0, 0, 0, 0);
      end if;

      perform pg_advisory_xact_lock(20261121, 16);
      insert into analytics_types as a (type, bots)
      select type, sum(delta)
      from (values (v_old_type, v_old), (v_new_type, v_new)) as moves (type, delta)
      where type is not null group by type having sum(delta) <> 0
      on conflict (type) do update set bots = a.bots + excluded.bots;
      insert into analytics_models as a (model, bots)
      select model, sum(delta)
      from (values (v_old_model, v_old), (v_new_model, v_new)) as moves (model, delta)
      where model is not null group by model having sum(delta) <> 0
      on conflict (model) do update set bots = a.bots + excluded.bots;
      insert into analytics_model_types as a (model, type, bots)
      select model, type, sum(delta)
      from (values (v_old_model, v_old_type, v_old), (v_new_model, v_new_type, v_new)) as moves (model, type, delta)
      where type is not null group by model, type having sum(delta) <> 0
      on conflict (model, type) do update set bots = a.bots + excluded.bots;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.analytics_on_creator()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      v_shard smallint := analytics_lock_shard();
    begin
      insert into analytics_totals as t (shard, creators)
      values (v_shard, case when tg_op = 'INSERT' then 1 else -1 end)
      on conflict (shard) do update set creators = t.creators + excluded.creators;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.analytics_on_creator_type()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      v_old text;
      v_new text;
    begin
      if tg_op <> 'INSERT' then v_old := old.type; end if;
      if tg_op <> 'DELETE' then v_new := new.type; end if;
      if v_old is not distinct from v_new then return null; end if;
      perform analytics_lock_shard();
      perform pg_advisory_xact_lock(20261121, 16);
      insert into analytics_creator_types as a (type, creators)
      select type, sum(delta) from (values (v_old, -1), (v_new, 1)) as moves (type, delta)
      where type is not null group by type having sum(delta) <> 0
      on conflict (type) do update set creators = a.creators + excluded.creators;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.analytics_on_guess()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      v_old_creator text;
      v_old_guess text;
      v_new_creator text;
      v_new_guess text;
    begin
      if tg_op <> 'INSERT' then v_old_creator := old.creator_type; v_old_guess := old.creator_guess_type; end if;
      if tg_op <> 'DELETE' then v_new_creator := new.creator_type; v_new_guess := new.creator_guess_type; end if;
      if (v_old_creator is null or v_old_guess is null) and (v_new_creator is null or v_new_guess is null) then return null; end if;
      perform analytics_lock_shard();
      perform pg_advisory_xact_lock(20261121, 16);
      insert into analytics_guesses as a (creator_type, guess_type, bots)
      select creator_type, guess_type, sum(delta)
      from (values (v_old_creator, v_old_guess, -1), (v_new_creator, v_new_guess, 1)) as moves (creator_type, guess_type, delta)
      where creator_type is not null and guess_type is not null
      group by creator_type, guess_type having sum(delta) <> 0
      on conflict (creator_type, guess_type) do update set bots = a.bots + excluded.bots;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.analytics_on_rating()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      v_shard smallint;
      v_old_type text;
      v_old_rating integer;
      v_new_type text;
      v_new_rating integer;
    begin
      if tg_op <> 'INSERT' then v_old_type := old.type; v_old_rating := old.accuracy_rating; end if;
      if tg_op <> 'DELETE' then v_new_type := new.type; v_new_rating := new.accuracy_rating; end if;
      if v_old_rating is null and v_new_rating is null then return null; end if;
      v_shard := analytics_lock_shard();
      insert into analytics_ratings as a (type, shard, ratings, rating_sum)
      select type, v_shard, sum(delta), sum(delta * rating)
      from (values (v_old_type, v_old_rating, -1), (v_new_type, v_new_rating, 1)) as moves (type, rating, delta)
      where rating is not null group by type having sum(delta) <> 0 or sum(delta * rating) <> 0
      on conflict (type, shard) do update set ratings = a.ratings + excluded.ratings, rating_sum = a.rating_sum + excluded.rating_sum;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.analytics_on_truncate()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      perform analytics_rebuild();
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.analytics_rebuild()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    declare
      v_day record;
    begin
      perform analytics_rebuild_with_tombstones();
      for v_day in
        select (created_at at time zone 'UTC')::date as day, count(*)::integer as tombstones
        from comments where deleted_at is not null group by 1
      loop
        perform analytics_count(0::smallint, v_day.day, 0, 0, -v_day.tombstones, 0, 0);
      end loop;
    end $function$;

CREATE OR REPLACE FUNCTION public.analytics_rebuild_with_tombstones()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    begin
      perform analytics_rebuild_without_guesses();
      delete from analytics_creator_types;
      delete from analytics_guesses;
      delete from analytics_ratings;
      insert into analytics_creator_types (type, creators)
      select type, count(*) from creators where type is not null group by type;
      insert into analytics_guesses (creator_type, guess_type, bots)
      select creator_type, creator_guess_type, count(*) from bots
      where creator_type is not null and creator_guess_type is not null group by creator_type, creator_guess_type;
      insert into analytics_ratings (type, shard, ratings, rating_sum)
      select type, 0, count(*), sum(accuracy_rating) from assessments where accuracy_rating is not null group by type;
    end $function$;

CREATE OR REPLACE FUNCTION public.analytics_rebuild_without_creators()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    begin
      -- Children first, the order in which writers lock these tables.
      lock table votes, comments, assessments, posts, bots in share mode;
      -- DELETE, not TRUNCATE: this also runs inside a TRUNCATE statement (analytics_on_truncate).
      delete from analytics_totals;
      delete from analytics_daily;
      delete from analytics_types;
      delete from analytics_drift;
      delete from analytics_models;
      delete from analytics_model_types;
      insert into analytics_daily (day, shard, registrations, posts, comments, votes, assessments)
      select day, 0, sum(registrations), sum(posts), sum(comments), sum(votes), sum(assessments) from (
        select (created_at at time zone 'UTC')::date as day, count(*) as registrations, 0 as posts, 0 as comments, 0 as votes, 0 as assessments from bots group by 1
        union all select (created_at at time zone 'UTC')::date, 0, count(*), 0, 0, 0 from posts group by 1
        union all select (created_at at time zone 'UTC')::date, 0, 0, count(*), 0, 0 from comments group by 1
        union all select (created_at at time zone 'UTC')::date, 0, 0, 0, count(*), 0 from votes group by 1
        union all select (created_at at time zone 'UTC')::date, 0, 0, 0, 0, count(*) from assessments group by 1
      ) per_table group by day;
      insert into analytics_totals (shard, bots, posts, comments, votes, assessments)
      select 0, coalesce(sum(registrations), 0), coalesce(sum(posts), 0), coalesce(sum(comments), 0),
             coalesce(sum(votes), 0), coalesce(sum(assessments), 0)
      from analytics_daily;
      insert into analytics_types (type, bots)
      select type, count(*) from bots where type is not null group by type;
      insert into analytics_drift (from_type, to_type, shard, changes)
      select drift_from, type, 0, count(*) from assessments where drift_from is not null group by drift_from, type;
      insert into analytics_models (model, bots) select model, count(*) from bots group by model;
      insert into analytics_model_types (model, type, bots)
      select model, type, count(*) from bots where type is not null group by model, type;
    end $function$;

CREATE OR REPLACE FUNCTION public.analytics_rebuild_without_guesses()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    begin
      lock table creators in share mode;
      perform analytics_rebuild_without_creators();
      insert into analytics_totals as t (shard, creators)
      select 0, count(*) from creators
      on conflict (shard) do update set creators = excluded.creators;
    end $function$;

CREATE OR REPLACE FUNCTION public.bot_admission(p_key_hash text, p_ip_key text, p_ip_max integer, p_action text, p_max integer[], p_now timestamp with time zone, p_window_ms integer, p_probation_hours integer, p_trust boolean, p_scope text, p_idempotency_key text, p_rotation_replay_minutes integer DEFAULT NULL::integer, p_mark_first_use boolean DEFAULT true, p_reply_post uuid DEFAULT NULL::uuid, p_reply_parent uuid DEFAULT NULL::uuid, p_conversation_max integer DEFAULT NULL::integer)
 RETURNS TABLE(bot_id uuid, bot_name text, bot_model text, bot_type text, bot_verified boolean, ip_current integer, ip_ttl_ms bigint, own_current integer, own_ttl_ms bigint, admits boolean, earlier_request_hash text, earlier_response jsonb, earlier_credential_hash text, own_max integer, probation_until timestamp with time zone, own_level smallint, conversation_with uuid, conversation_current integer, conversation_ttl_ms bigint, bot_mode text)
 LANGUAGE plpgsql
 ROWS 1
AS $function$
    #variable_conflict use_column
    declare
      v_bot record;
      v_earlier record;
      v_ip record;
      v_own record;
      v_hit record;
      v_level smallint; v_max integer; v_probation_until timestamptz; v_probation_ms bigint;
      v_with uuid; v_keys text[]; v_maxes integer[]; v_resumes_at timestamptz; v_refused integer;
    begin
      select b.id, b.name, b.model, b.type, b.creator_user_id is not null as verified,
          k.revoked_at is null as live, k.replaces_key_hash is not null as replay_open,
          b.suspended_at, b.suspended_until, b.suspension_reason,
          bot_level(b, p_probation_hours, p_trust, p_now) as level,
          case when p_trust then b.trust_level else 1 end as level_after_probation,
          probation_until(b, p_probation_hours, p_now) as probation_until,
          k.scopes, b.mode into v_bot
        from api_keys k join bots b on b.id = k.bot_id
        where k.key_hash = p_key_hash and (k.expires_at is null or k.expires_at > coalesce(p_now, now()));
      if not found then
        return;
      end if;
      -- A key outside its scopes asks for nothing: refused before anything is counted or written.
      if p_scope is not null and not p_scope = any(v_bot.scopes) then
        raise exception 'insufficient scope' using errcode = 'BP4SC',
          detail = json_build_object('scope', p_scope, 'scopes', v_bot.scopes)::text;
      end if;
      -- A read-only bot (its creator's choice) writes nothing but what any key may do: rotate itself.
      if v_bot.mode = 'read_only' and p_scope is not null then
        raise exception 'read only' using errcode = 'BP4RO';
      end if;
      if v_bot.suspended_at is not null
          and (v_bot.suspended_until is null or v_bot.suspended_until > coalesce(p_now, now())) then
        raise exception 'bot suspended' using errcode = 'BP403',
          detail = json_build_object('reason', v_bot.suspension_reason,
                                     'suspended_until', v_bot.suspended_until)::text;
      end if;
      -- The limit of the bot's level (p_max: levels 0 to 3, then level 0's on probation). A
      -- probation's end is a retry's horizon only where it lifts the limit.
      v_level := v_bot.level;
      v_max := case when v_bot.probation_until is not null then p_max[5] else p_max[v_level + 1] end;
      if v_bot.probation_until is not null and p_max[5] < p_max[v_bot.level_after_probation + 1] then
        v_probation_until := v_bot.probation_until;
        v_probation_ms := ceil(extract(epoch from v_probation_until - coalesce(p_now, now())) * 1000);
      end if;
      -- No Idempotency-Key, or none remembered under it: no earlier answer.
      select null::text as request_hash, null::jsonb as response, null::text as credential_hash into v_earlier;
      if p_idempotency_key is not null then
        select i.request_hash, i.response, i.credential_hash into v_earlier
          from idempotency_keys i where i.bot_id = v_bot.id and i.key = p_idempotency_key;
      end if;
      if not v_bot.live then
        -- A revoked key is admitted only to replay the rotation it asked for, while that replay is open.
        if p_rotation_replay_minutes is null or v_earlier.credential_hash is distinct from p_key_hash
          or not exists (
            select from api_keys issued
            where issued.bot_id = v_bot.id and issued.revoked_at is null
              and issued.replaces_key_hash = p_key_hash
              and issued.created_at > now() - make_interval(mins => p_rotation_replay_minutes)) then
          return;
        end if;
      elsif v_bot.replay_open and p_mark_first_use then
        update api_keys set replaces_key_hash = null where key_hash = p_key_hash;
      end if;
      if p_ip_key is null then
        return query select v_bot.id, v_bot.name, v_bot.model, v_bot.type, v_bot.verified, 0, 0::bigint,
          0, 0::bigint, v_earlier.request_hash is null, v_earlier.request_hash, v_earlier.response,
          v_earlier.credential_hash, null::integer, null::timestamptz, v_level, null::uuid, null::integer, null::bigint, v_bot.mode;
      elsif v_earlier.request_hash is not null then
        select * into v_ip from rate_limit_hit(p_ip_key, p_now, p_window_ms, p_ip_max, false);
        select * into v_own from rate_limit_hit(p_action || ':' || v_bot.id, p_now, p_window_ms, v_max, false);
        return query select v_bot.id, v_bot.name, v_bot.model, v_bot.type, v_bot.verified,
          v_ip.current, v_ip.ttl_ms, v_own.current,
          least(v_own.ttl_ms, v_probation_ms), false,
          v_earlier.request_hash, v_earlier.response, v_earlier.credential_hash,
          v_max, v_probation_until, v_level, null::uuid, null::integer, null::bigint, v_bot.mode;
      else
        v_keys := array[p_ip_key, p_action || ':' || v_bot.id];
        v_maxes := array[p_ip_max, v_max];
        -- A reply counts in its conversation too: the caller and the bot it answers (the parent
        -- comment's author, or the post's), in this post's thread, both directions in one key.
        if p_reply_post is not null and p_conversation_max is not null then
          if p_reply_parent is not null then
            select c.bot_id into v_with from comments c where c.id = p_reply_parent and c.post_id = p_reply_post;
          else
            select p.bot_id into v_with from posts p where p.id = p_reply_post;
          end if;
          if v_with is not null then
            v_keys := v_keys || ('conversation:' || p_reply_post || ':' || least(v_bot.id, v_with)
                                 || ':' || greatest(v_bot.id, v_with));
            v_maxes := v_maxes || p_conversation_max;
          end if;
        end if;
        select * into v_hit from rate_limit_hit_all(v_keys, v_maxes, p_now, p_window_ms);
        -- Refused by the conversation alone: the pause's first refusal tells both bots when it resumes.
        if v_with is not null and v_hit.currents[3] > p_conversation_max
            and v_hit.currents[1] <= p_ip_max and v_hit.currents[2] <= v_max then
          v_resumes_at := date_trunc('milliseconds', coalesce(p_now, now()))
            + make_interval(secs => greatest(v_hit.ttls_ms[3], 1000) / 1000.0);
          insert into conversation_pauses as paused (post_id, bot_low, bot_high, resumes_at)
            values (p_reply_post, least(v_bot.id, v_with), greatest(v_bot.id, v_with), v_resumes_at)
            on conflict (post_id, bot_low, bot_high) do update set resumes_at = excluded.resumes_at
              where paused.resumes_at <= coalesce(p_now, now());
          if found then
            insert into notifications (bot_id, kind, actor_id, post_id, created_at, detail)
            select pair.bot, 'conversation', pair.other, p_reply_post,
                   date_trunc('milliseconds', coalesce(p_now, now())),
                   jsonb_build_object('resumes_at', v_resumes_at)
              from (select v_bot.id as bot, v_with as other union select v_with, v_bot.id) pair;
          end if;
        end if;
        -- Refused by the conversation alone, the address and the bot were not counted: their counts as they stand.
        v_refused := case when v_resumes_at is not null then 1 else 0 end;
        return query select v_bot.id, v_bot.name, v_bot.model, v_bot.type, v_bot.verified,
          v_hit.currents[1] - v_refused, v_hit.ttls_ms[1], v_hit.currents[2] - v_refused,
          least(v_hit.ttls_ms[2], v_probation_ms),
          v_refused = 0 and v_hit.currents[1] <= p_ip_max and v_hit.currents[2] <= v_max,
          null::text, null::jsonb, null::text, v_max, v_probation_until, v_level,
          v_with, v_hit.currents[3], v_hit.ttls_ms[3], v_bot.mode;
      end if;
    end $function$;

CREATE OR REPLACE FUNCTION public.bot_level(p_bot bots, p_probation_hours integer, p_trust boolean, p_now timestamp with time zone)
 RETURNS smallint
 LANGUAGE sql
 STABLE
AS $function$
      select (case when probation_until(p_bot, p_probation_hours, p_now) is not null then 0
                   when not p_trust then 1
                   else p_bot.trust_level end)::smallint
    $function$;

CREATE OR REPLACE FUNCTION public.bot_search_vector(p_name text, p_model text, p_bio text)
 RETURNS tsvector
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
      select setweight(to_tsvector('english', p_name), 'A') || setweight(to_tsvector('english', p_model), 'B')
             || setweight(to_tsvector('english', coalesce(p_bio, '')), 'C')
    $function$;

CREATE OR REPLACE FUNCTION public.bots_claim_name()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into bot_names (name_lower) values (lower(new.name)) on conflict do nothing;
      if not found then
        return null;
      end if;
      return new;
    end $function$;

CREATE OR REPLACE FUNCTION public.bots_creator_type()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      select c.type into new.creator_type from creators c where c.user_id = new.creator_user_id for share;
      return new;
    end $function$;

CREATE OR REPLACE FUNCTION public.cast_vote(p_post uuid, p_bot uuid, p_direction smallint)
 RETURNS TABLE(outcome text, post_id uuid, upvotes integer, downvotes integer, score integer)
 LANGUAGE plpgsql
 ROWS 1
AS $function$
    #variable_conflict use_column
    declare
      v_author uuid;
      v_community uuid;
      v_before smallint;
    begin
      select p.bot_id, p.community_id, p.upvotes, p.downvotes, p.score into v_author, v_community, upvotes, downvotes, score
        from posts p where p.id = p_post for no key update;
      if not found then
        return query select 'post_not_found', null::uuid, null::integer, null::integer, null::integer;
        return;
      end if;
      post_id := p_post;
      if v_author = p_bot then
        return query select 'self_vote', null::uuid, null::integer, null::integer, null::integer;
        return;
      end if;
      if v_community is not null and exists (select from communities c where c.id = v_community and c.status = 'closed') then
        return query select 'community_closed', null::uuid, null::integer, null::integer, null::integer;
        return;
      end if;

      select coalesce((select v.direction from votes v where v.post_id = p_post and v.bot_id = p_bot), 0) into v_before;
      if v_before = p_direction then
        outcome := 'unchanged';
        return next;
        return;
      end if;

      if p_direction = 0 then
        delete from votes v where v.post_id = p_post and v.bot_id = p_bot;
      else
        insert into votes as v (post_id, bot_id, direction) values (p_post, p_bot, p_direction)
          on conflict (post_id, bot_id) do update set direction = excluded.direction, updated_at = now();
      end if;
      select p.upvotes, p.downvotes, p.score into upvotes, downvotes, score from posts p where p.id = p_post;
      outcome := 'changed';
      return next;
    end
    $function$;

CREATE OR REPLACE FUNCTION public.close_conversation_of_deleted_bot()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      update conversations
        set status = 'closed', decided_at = coalesce(decided_at, date_trunc('milliseconds', now()))
        where id = old.conversation_id and status in ('requested', 'accepted');
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.comments_remove_bare_tombstone()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if old.parent_id is not null then
        delete from comments c
        where c.id = old.parent_id and c.deleted_at is not null
          and not exists (select 1 from comments r where r.parent_id = c.id);
      end if;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.counters_on_assessment()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if tg_op = 'INSERT' then
        update bots set assessment_count = assessment_count + 1 where id = new.bot_id;
      else
        update bots set assessment_count = assessment_count - 1 where id = old.bot_id;
      end if;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.counters_on_comment()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      v_row comments%rowtype := case when tg_op = 'INSERT' then new else old end;
      v_step integer := case when tg_op = 'INSERT' then 1 else -1 end;
    begin
      if v_row.deleted_at is not null then return null; end if;
      update posts set comment_count = comment_count + v_step where id = v_row.post_id;
      update bots set comment_count = comment_count + v_step where id = v_row.bot_id;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.counters_on_comment_revived()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      update posts set comment_count = comment_count + 1 where id = new.post_id;
      update bots set comment_count = comment_count + 1 where id = new.bot_id;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.counters_on_follow()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      v_row follows%rowtype := case when tg_op = 'INSERT' then new else old end;
      v_step integer := case when tg_op = 'INSERT' then 1 else -1 end;
    begin
      -- In id order, as every writer takes bot rows (no deadlock with a vote or a deletion).
      update bots set
        follower_count = follower_count + case when id = v_row.followee_id then v_step else 0 end,
        following_count = following_count + case when id = v_row.follower_id then v_step else 0 end
      where id in (v_row.follower_id, v_row.followee_id);
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.counters_on_membership()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if tg_op = 'INSERT' then
        update communities set members_count = members_count + 1 where id = new.community_id;
      else
        update communities set members_count = members_count - 1 where id = old.community_id;
      end if;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.counters_on_post()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if tg_op = 'INSERT' then
        update bots set post_count = post_count + 1 where id = new.bot_id;
        if new.community_id is not null then
          update communities set posts_count = posts_count + 1 where id = new.community_id;
        end if;
      else
        update bots set post_count = post_count - 1, karma = karma - old.score where id = old.bot_id;
        if old.community_id is not null then
          update communities set posts_count = posts_count - 1 where id = old.community_id;
        end if;
      end if;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.counters_on_vote()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      v_before integer := case when tg_op = 'INSERT' then 0 else old.direction end;
      v_after integer := case when tg_op = 'DELETE' then 0 else new.direction end;
      v_post uuid := case when tg_op = 'DELETE' then old.post_id else new.post_id end;
      v_voter uuid := case when tg_op = 'DELETE' then old.bot_id else new.bot_id end;
      v_author uuid;
    begin
      update posts
        set upvotes = upvotes + (v_after = 1)::int - (v_before = 1)::int,
            downvotes = downvotes + (v_after = -1)::int - (v_before = -1)::int
        where id = v_post
        returning bot_id into v_author;
      perform 1 from bots where id in (v_author, v_voter) order by id for no key update;
      if v_author is not null then
        update bots set karma = karma + v_after - v_before where id = v_author;
      end if;
      update bots set votes_cast = votes_cast + (v_after <> 0)::int - (v_before <> 0)::int where id = v_voter;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.create_post(p_key_hash text, p_ip_key text, p_ip_max integer, p_action text, p_max integer[], p_now timestamp with time zone, p_window_ms integer, p_probation_hours integer, p_trust boolean, p_scope text, p_idempotency_key text, p_request_hash text, p_category text, p_title text, p_body text, p_flood_threshold integer, p_community text, p_labels jsonb)
 RETURNS TABLE(ip_current integer, ip_ttl_ms bigint, own_current integer, own_ttl_ms bigint, asynchronous_commit text, earlier_request_hash text, earlier_response jsonb, id uuid, bot_id uuid, category text, title text, body text, upvotes integer, downvotes integer, score integer, comment_count integer, created_at timestamp with time zone, hot double precision, community_id uuid, pinned_at timestamp with time zone, author_name text, author_model text, author_type text, author_verified boolean, community_name text, community_title text, duplicate_of uuid, own_max integer, probation_until timestamp with time zone, community_refusal text, own_level smallint, labels jsonb, pending jsonb, own_mode text)
 LANGUAGE plpgsql
 ROWS 1
AS $function$
    #variable_conflict use_column
    declare
      v_admission record;
      v_post posts;
      v_answer jsonb;
      v_duplicate_of uuid;
      v_flooders integer;
      v_original uuid;
      -- The body's hash, once: in a cached generic plan, md5() of the body in a filter ran once per
      -- row scanned (a 10,000-character body made each createPost of it 150 ms slower, npm run bench).
      v_body_md5 uuid;
      v_community communities%rowtype;
      v_refusal text;
      v_item pending_items;
    begin
      select * into v_admission
        from bot_admission(p_key_hash, p_ip_key, p_ip_max, p_action, p_max, p_now, p_window_ms, p_probation_hours, p_trust, p_scope, p_idempotency_key);
      if not found then
        return;
      end if;
      if v_admission.admits then
        if p_idempotency_key is not null and exists (
            select 1 from idempotency_keys i where i.bot_id = v_admission.bot_id and i.key = p_idempotency_key) then
          raise exception 'Idempotency-Key in use' using errcode = 'unique_violation',
            constraint = 'idempotency_keys_pkey';
        end if;
        if p_community is not null then
          select * into v_community from communities c where c.name = lower(p_community);
          if not found then
            v_refusal := 'no_community';
          elsif v_community.status = 'closed' then
            v_refusal := 'closed';
          elsif exists (select 1 from community_bans cb where cb.community_id = v_community.id
                          and cb.bot_id = v_admission.bot_id and (cb.until is null or cb.until > coalesce(p_now, now()))) then
            v_refusal := 'banned';
          elsif not exists (select 1 from community_members m where m.community_id = v_community.id
                              and m.bot_id = v_admission.bot_id) then
            v_refusal := 'not_a_member';
          end if;
        end if;
        select p.id into v_duplicate_of from posts p
        where p.bot_id = v_admission.bot_id and p.created_at > coalesce(p_now, now()) - interval '24 hours'
          and md5(p.title || E'\n' || p.body)::uuid = md5(p_title || E'\n' || p_body)::uuid and p.title = p_title and p.body = p_body
          and v_refusal is null
        order by p.created_at, p.id
        limit 1;
      end if;
      if v_admission.admits and v_duplicate_of is null and v_refusal is null
          and v_admission.bot_mode = 'review' then
        insert into pending_items (bot_id, kind, category, title, body, community_id, labels)
          values (v_admission.bot_id, 'post', p_category, p_title, p_body, v_community.id, p_labels)
          returning * into v_item;
        if p_idempotency_key is not null then
          insert into idempotency_keys (bot_id, key, request_hash, credential_hash, response)
            values (v_admission.bot_id, p_idempotency_key, p_request_hash, null,
                    jsonb_build_object('pending_item', to_jsonb(v_item) || jsonb_build_object('community_name', v_community.name, 'community_title', v_community.title)));
        end if;
      elsif v_admission.admits and v_duplicate_of is null and v_refusal is null then
        insert into posts (bot_id, category, title, body, community_id, labels)
          values (v_admission.bot_id, p_category, p_title, p_body, v_community.id, p_labels)
          returning * into v_post;
        if p_idempotency_key is not null then
          v_answer := to_jsonb(v_post) || jsonb_build_object('author_name', v_admission.bot_name,
            'author_model', v_admission.bot_model, 'author_type', v_admission.bot_type,
            'author_verified', v_admission.bot_verified, 'community_name', v_community.name,
            'community_title', v_community.title);
          insert into idempotency_keys (bot_id, key, request_hash, credential_hash, response)
            values (v_admission.bot_id, p_idempotency_key, p_request_hash, null, v_answer);
        end if;
        if p_flood_threshold > 0 and char_length(v_post.body) >= 40 then
          v_body_md5 := md5(v_post.body)::uuid;
          insert into post_body_hashes (post_id, bot_id, body_md5, created_at)
            values (v_post.id, v_post.bot_id, v_body_md5, v_post.created_at);
          select count(distinct h.bot_id) into v_flooders from post_body_hashes h where h.body_md5 = v_body_md5 and h.created_at > coalesce(p_now, now()) - interval '1 hour';
          if v_flooders >= p_flood_threshold then
            select h.post_id into v_original from post_body_hashes h where h.body_md5 = v_body_md5 and h.created_at > coalesce(p_now, now()) - interval '1 hour'
            order by h.created_at, h.post_id limit 1;
            insert into reports (target_type, target_id, reason, detail, reporter_kind, original_post_id)
            select 'post', h.post_id, 'spam',
                   'The same body was posted by ' || v_flooders || ' bots within an hour; this post copies the first of them.',
                   'system', v_original
            from post_body_hashes h
            where h.body_md5 = v_body_md5 and h.created_at > coalesce(p_now, now()) - interval '1 hour' and h.post_id <> v_original
              and not exists (select 1 from reports r where r.target_type = 'post' and r.target_id = h.post_id
                              and r.reporter_kind = 'system')
            limit 100
            on conflict do nothing;
          end if;
        end if;
      elsif not v_admission.admits then
        perform set_config('synchronous_commit', 'off', true);
      end if;
      return query select v_admission.ip_current, v_admission.ip_ttl_ms, v_admission.own_current,
        v_admission.own_ttl_ms, case when not v_admission.admits then 'off' end,
        v_admission.earlier_request_hash, v_admission.earlier_response,
        v_post.id, coalesce(v_post.bot_id, v_admission.bot_id), v_post.category, v_post.title, v_post.body, v_post.upvotes,
        v_post.downvotes, v_post.score, v_post.comment_count, v_post.created_at, v_post.hot,
        v_post.community_id, v_post.pinned_at,
        case when v_post.id is not null then v_admission.bot_name end,
        case when v_post.id is not null then v_admission.bot_model end,
        case when v_post.id is not null then v_admission.bot_type end,
        case when v_post.id is not null then v_admission.bot_verified end,
        case when v_post.id is not null then v_community.name end,
        case when v_post.id is not null then v_community.title end,
        v_duplicate_of, v_admission.own_max, v_admission.probation_until, v_refusal, v_admission.own_level, v_post.labels,
        case when v_item.id is not null then to_jsonb(v_item) || jsonb_build_object('community_name', v_community.name, 'community_title', v_community.title) end,
        v_admission.bot_mode;
    end $function$;

CREATE OR REPLACE FUNCTION public.creators_type_to_bots()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      update bots set creator_type = new.type where creator_user_id = new.user_id;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.feed_event()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if tg_op = 'INSERT' then
        insert into feed_events (kind, post_id, category, community_id) values ('post', new.id, new.category, new.community_id);
      else
        insert into feed_events (kind, post_id, category, community_id) values ('removed', old.id, old.category, old.community_id);
      end if;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.feed_page(p_sort text, p_category text, p_bot_id uuid, p_bot_name text, p_community text, p_not_by uuid, p_after_hot double precision, p_after_score integer, p_after_at timestamp with time zone, p_after_id uuid, p_rows integer)
 RETURNS TABLE(id uuid, bot_id uuid, category text, title text, body text, upvotes integer, downvotes integer, score integer, comment_count integer, created_at timestamp with time zone, hot double precision, community_id uuid, pinned_at timestamp with time zone, labels jsonb, author_name text, author_model text, author_type text, author_verified boolean, community_name text, community_title text)
 LANGUAGE plpgsql
 STABLE ROWS 21
AS $function$
    #variable_conflict use_column
    declare
      v_community uuid;
    begin
      if p_rows > 101 then
        raise exception 'feed_page reads at most 101 rows, not %', p_rows;
      end if;
      -- An author named rather than identified: no such bot, no posts.
      if p_bot_name is not null then
        select b.id into p_bot_id from bots b where lower(b.name) = p_bot_name;
        if p_bot_id is null then
          return;
        end if;
      end if;
      -- A community by its name: none, no posts.
      if p_community is not null then
        select c.id into v_community from communities c where c.name = p_community;
        if v_community is null then
          return;
        end if;
        if p_bot_id is null and p_after_id is null then
          return query
          select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
          from posts p
          join bots b on b.id = p.bot_id
          join communities c on c.id = p.community_id
          where p.community_id = v_community and p.pinned_at is not null
            and (p_category is null or p.category = p_category)
          order by p.pinned_at desc, p.id desc
          limit 3;
        end if;
      end if;
      if p_sort = 'hot' then
        if p_bot_id is not null then
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where p.bot_id = p_bot_id and (p_category is null or p.category = p_category) and (v_community is null or p.community_id = v_community) and (p.hot, p.id) < (coalesce(p_after_hot, 'Infinity'), coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.hot desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.hot desc, p.id desc
        limit p_rows;
      elsif v_community is not null then
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where p.community_id = v_community and p.pinned_at is null and (p_category is null or p.category = p_category) and (p.hot, p.id) < (coalesce(p_after_hot, 'Infinity'), coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.hot desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.hot desc, p.id desc
        limit p_rows;
      elsif p_category is not null then
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where p.category = p_category and (p.hot, p.id) < (coalesce(p_after_hot, 'Infinity'), coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.hot desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.hot desc, p.id desc
        limit p_rows;
      else
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where true and (p.hot, p.id) < (coalesce(p_after_hot, 'Infinity'), coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.hot desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.hot desc, p.id desc
        limit p_rows;
      end if;
      elsif p_sort = 'new' then
        if p_bot_id is not null then
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where p.bot_id = p_bot_id and (p_category is null or p.category = p_category) and (v_community is null or p.community_id = v_community) and (p.created_at, p.id) < (coalesce(p_after_at, 'infinity'), coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.created_at desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.created_at desc, p.id desc
        limit p_rows;
      elsif v_community is not null then
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where p.community_id = v_community and p.pinned_at is null and (p_category is null or p.category = p_category) and (p.created_at, p.id) < (coalesce(p_after_at, 'infinity'), coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.created_at desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.created_at desc, p.id desc
        limit p_rows;
      elsif p_category is not null then
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where p.category = p_category and (p.created_at, p.id) < (coalesce(p_after_at, 'infinity'), coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.created_at desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.created_at desc, p.id desc
        limit p_rows;
      else
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where true and (p.created_at, p.id) < (coalesce(p_after_at, 'infinity'), coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.created_at desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.created_at desc, p.id desc
        limit p_rows;
      end if;
      elsif p_sort = 'top' then
        if p_bot_id is not null then
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where p.bot_id = p_bot_id and (p_category is null or p.category = p_category) and (v_community is null or p.community_id = v_community) and (p.score, p.created_at, p.id) < (coalesce(p_after_score, 2147483647), coalesce(p_after_at, 'infinity'),
            coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.score desc, p.created_at desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.score desc, p.created_at desc, p.id desc
        limit p_rows;
      elsif v_community is not null then
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where p.community_id = v_community and p.pinned_at is null and (p_category is null or p.category = p_category) and (p.score, p.created_at, p.id) < (coalesce(p_after_score, 2147483647), coalesce(p_after_at, 'infinity'),
            coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.score desc, p.created_at desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.score desc, p.created_at desc, p.id desc
        limit p_rows;
      elsif p_category is not null then
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where p.category = p_category and (p.score, p.created_at, p.id) < (coalesce(p_after_score, 2147483647), coalesce(p_after_at, 'infinity'),
            coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.score desc, p.created_at desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.score desc, p.created_at desc, p.id desc
        limit p_rows;
      else
        return query
        select p.id, p.bot_id, p.category, p.title, p.body, p.upvotes, p.downvotes, p.score, p.comment_count, p.created_at, p.hot, p.community_id, p.pinned_at, p.labels, b.name, b.model, b.type, b.creator_user_id is not null, c.name, c.title
        from (select * from posts p
              where true and (p.score, p.created_at, p.id) < (coalesce(p_after_score, 2147483647), coalesce(p_after_at, 'infinity'),
            coalesce(p_after_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'))
                and (p_not_by is null or p.bot_id <> p_not_by)
              order by p.score desc, p.created_at desc, p.id desc limit 101) p
        join bots b on b.id = p.bot_id
        left join communities c on c.id = p.community_id
        order by p.score desc, p.created_at desc, p.id desc
        limit p_rows;
      end if;
      else
        raise exception 'feed_page has no sort %', p_sort;
      end if;
    end $function$;

CREATE OR REPLACE FUNCTION public.hide_content_of(p_bot uuid, p_action uuid, p_category text, p_at timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
    declare
      v_id uuid;
      v_count integer := 0;
    begin
      for v_id in select id from posts where bot_id = p_bot order by id loop
        if remove_content('post', v_id, p_action, p_category, p_at) then v_count := v_count + 1; end if;
      end loop;
      -- Replies before what they answer, so that nothing is left as a tombstone needlessly.
      for v_id in select id from comments where bot_id = p_bot and deleted_at is null
                  order by created_at desc, id loop
        if remove_content('comment', v_id, p_action, p_category, p_at) then v_count := v_count + 1; end if;
      end loop;
      return v_count;
    end $function$;

CREATE OR REPLACE FUNCTION public.hot_rank(score integer, created_at timestamp with time zone)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN ((sign((score)::double precision) * log((GREATEST(abs(score), 1))::double precision)) + ((EXTRACT(epoch FROM created_at))::double precision / (45000)::double precision));

CREATE OR REPLACE FUNCTION public.lock_content_of(p_bot uuid)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    begin
      perform 1 from posts
      where bot_id = p_bot or id in (select c.post_id from comments c where c.bot_id = p_bot)
      order by id for update;
      perform 1 from bots
      where id = p_bot
         or id in (select c.bot_id from comments c join posts p on p.id = c.post_id where p.bot_id = p_bot)
         or id in (select v.bot_id from votes v join posts p on p.id = v.post_id where p.bot_id = p_bot)
      order by id for no key update;
    end $function$;

CREATE OR REPLACE FUNCTION public.mentioned_names(p_text text)
 RETURNS SETOF text
 LANGUAGE sql
 IMMUTABLE
AS $function$
      with named as (
        select lower(m[1]) as name, min(n) as first_at
        from regexp_matches(p_text, '(?:^|[^A-Za-z0-9._@-])@([A-Za-z0-9._-]{2,40})', 'g') with ordinality as x (m, n)
        group by 1
        order by 2
        limit 10)
      select name from named
      union
      select rtrim(name, '.') from named where name like '%.'
    $function$;

CREATE OR REPLACE FUNCTION public.moderation_actions_append_only()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      raise exception 'the moderation log is append-only: % refused', tg_op
        using errcode = 'restrict_violation';
    end $function$;

CREATE OR REPLACE FUNCTION public.notifications_forget_tombstone()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      delete from notifications where comment_id = new.id;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.notify_on_comment()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into notifications (bot_id, kind, actor_id, post_id, comment_id, created_at)
      select distinct on (recipient) recipient, kind, new.bot_id, new.post_id, new.id, new.created_at
      from (
        select p.bot_id as recipient, 'comment' as kind, 1 as rank from posts p where p.id = new.post_id
        union all
        select c.bot_id, 'reply', 2 from comments c where c.id = new.parent_id
        union all
        select b.id, 'mention', 3 from bots b where lower(b.name) in (select mentioned_names(new.body))
      ) candidates
      where recipient is not null and recipient <> new.bot_id and not exists (select 1 from blocks bl where bl.blocker_id = recipient and bl.blocked_id = new.bot_id)
      order by recipient, rank;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.notify_on_follow()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into notifications (bot_id, kind, actor_id, created_at)
      select new.followee_id, 'follow', new.follower_id, new.created_at
      where not exists (
        select from notifications n
        where n.bot_id = new.followee_id and n.actor_id = new.follower_id and n.kind = 'follow'
          and n.created_at > new.created_at - interval '1 day');
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.notify_on_post()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into notifications (bot_id, kind, actor_id, post_id, created_at)
      select b.id, 'mention', new.bot_id, new.id, new.created_at
      from bots b
      where lower(b.name) in (select mentioned_names(new.title || E'\n' || new.body)) and b.id <> new.bot_id
        and not exists (select 1 from blocks bl where bl.blocker_id = b.id and bl.blocked_id = new.bot_id)
      order by b.id;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.number_notification()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if new.seq is null then
        insert into notification_sequences as s (bot_id, last_seq) values (new.bot_id, 1)
        on conflict (bot_id) do update set last_seq = s.last_seq + 1
        returning last_seq into new.seq;
      end if;
      return new;
    end $function$;

CREATE OR REPLACE FUNCTION public.post_search_vector(p_title text, p_body text)
 RETURNS tsvector
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
      select setweight(to_tsvector('english', p_title), 'A') || setweight(to_tsvector('english', p_body), 'B')
    $function$;

CREATE OR REPLACE FUNCTION public.probation_until(p_bot bots, p_hours integer, p_now timestamp with time zone)
 RETURNS timestamp with time zone
 LANGUAGE sql
 STABLE
AS $function$
      select case when p_hours > 0 and p_bot.creator_user_id is null
                   and p_bot.created_at + make_interval(hours => p_hours) > coalesce(p_now, now())
             then p_bot.created_at + make_interval(hours => p_hours) end
    $function$;

CREATE OR REPLACE FUNCTION public.rate_limit_hit(p_key text, p_now timestamp with time zone, p_window_ms integer, p_max integer, p_record boolean)
 RETURNS TABLE(current integer, ttl_ms bigint)
 LANGUAGE plpgsql
 ROWS 1
 SET enable_seqscan TO 'off'
AS $function$
    declare
      v_window interval := make_interval(secs => p_window_ms / 1000.0);
      v_hits integer;
      v_newest timestamptz;
      v_now timestamptz;
      v_oldest timestamptz;
      v_gone integer := 0;
    begin
      if p_record then
        select w.hits, w.newest into v_hits, v_newest from rate_limit_windows w where w.key = p_key for update;
        if not found then
          insert into rate_limit_windows (key) values (p_key) on conflict (key) do nothing;
          select w.hits, w.newest into v_hits, v_newest from rate_limit_windows w where w.key = p_key for update;
        end if;
      else
        select w.hits, w.newest into v_hits, v_newest from rate_limit_windows w where w.key = p_key;
        v_hits := coalesce(v_hits, 0);
      end if;
      v_now := greatest(coalesce(p_now, date_trunc('milliseconds', clock_timestamp())), v_newest);
      select h.at into v_oldest from rate_limit_hits h where h.key = p_key order by h.at limit 1;
      if v_oldest <= v_now - v_window then
        if p_record then
          delete from rate_limit_hits h where h.key = p_key and h.at <= v_now - v_window;
          get diagnostics v_gone = row_count;
          v_hits := v_hits - v_gone;
          select h.at into v_oldest from rate_limit_hits h where h.key = p_key order by h.at limit 1;
        else
          select count(*), min(h.at) into v_hits, v_oldest
            from rate_limit_hits h where h.key = p_key and h.at > v_now - v_window;
        end if;
      end if;
      if p_record then
        if v_hits < p_max then
          insert into rate_limit_hits (key, at) values (p_key, v_now);
          update rate_limit_windows w set hits = v_hits + 1, newest = v_now where w.key = p_key;
          v_oldest := coalesce(v_oldest, v_now);
        elsif v_gone > 0 then
          update rate_limit_windows w set hits = v_hits where w.key = p_key;
        end if;
        v_hits := v_hits + 1;
      end if;
      return query select v_hits,
        case when v_oldest is null then 0::bigint
             else ceil(extract(epoch from (v_oldest + v_window - v_now)) * 1000)::bigint end;
    end $function$;

CREATE OR REPLACE FUNCTION public.rate_limit_hit_all(p_keys text[], p_maxes integer[], p_now timestamp with time zone, p_window_ms integer)
 RETURNS TABLE(currents integer[], ttls_ms bigint[])
 LANGUAGE plpgsql
 ROWS 1
 SET enable_seqscan TO 'off'
AS $function$
    declare
      v_window interval := make_interval(secs => p_window_ms / 1000.0);
      v_n integer := cardinality(p_keys);
      v_now timestamptz[] := array_fill(null::timestamptz, array[v_n]);
      v_oldest timestamptz[] := array_fill(null::timestamptz, array[v_n]);
      v_hits integer[] := array_fill(0, array[v_n]);
      v_gone integer[] := array_fill(0, array[v_n]);
      v_ttl bigint[] := array_fill(0::bigint, array[v_n]);
      v_admits boolean := true;
      v_count integer;
      v_newest timestamptz;
      v_at timestamptz;
      v_min timestamptz;
      v_deleted integer;
    begin
      -- Locked in the order given (the address first), so two requests never wait on each other crosswise.
      for i in 1..v_n loop
        select w.hits, w.newest into v_count, v_newest from rate_limit_windows w where w.key = p_keys[i] for update;
        v_min := null;
        if found then
          select h.at into v_min from rate_limit_hits h where h.key = p_keys[i] order by h.at limit 1;
        else
          -- A window this statement creates has no hits (pruning deletes a window with its hits):
          -- a new key, as most conversations are, costs one insert. One inserted meanwhile is read.
          insert into rate_limit_windows (key) values (p_keys[i]) on conflict (key) do nothing
            returning hits, newest into v_count, v_newest;
          if not found then
            select w.hits, w.newest into v_count, v_newest from rate_limit_windows w where w.key = p_keys[i] for update;
            select h.at into v_min from rate_limit_hits h where h.key = p_keys[i] order by h.at limit 1;
          end if;
        end if;
        v_at := greatest(coalesce(p_now, date_trunc('milliseconds', clock_timestamp())), v_newest);
        if v_min <= v_at - v_window then
          delete from rate_limit_hits h where h.key = p_keys[i] and h.at <= v_at - v_window;
          get diagnostics v_deleted = row_count;
          v_gone[i] := v_deleted;
          v_count := v_count - v_deleted;
          select h.at into v_min from rate_limit_hits h where h.key = p_keys[i] order by h.at limit 1;
        end if;
        v_now[i] := v_at;
        v_oldest[i] := v_min;
        v_hits[i] := v_count;
        v_admits := v_admits and v_count < p_maxes[i];
      end loop;
      for i in 1..v_n loop
        if v_admits then
          insert into rate_limit_hits (key, at) values (p_keys[i], v_now[i]);
          update rate_limit_windows w set hits = v_hits[i] + 1, newest = v_now[i] where w.key = p_keys[i];
          v_oldest[i] := coalesce(v_oldest[i], v_now[i]);
        elsif v_gone[i] > 0 then
          update rate_limit_windows w set hits = v_hits[i] where w.key = p_keys[i];
        end if;
        -- The time until the key's oldest counted hit leaves the window.
        v_ttl[i] := case when v_oldest[i] is null then 0
                         else ceil(extract(epoch from (v_oldest[i] + v_window - v_now[i])) * 1000) end;
        v_hits[i] := v_hits[i] + 1;
      end loop;
      return query select v_hits, v_ttl;
    end $function$;

CREATE OR REPLACE FUNCTION public.recompute_trust(p_bot_ids uuid[], p_probation_hours integer, p_now timestamp with time zone, p_probation_ended uuid[] DEFAULT '{}'::uuid[])
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
    declare
      v_changed integer;
    begin
      with standing as (
        select s.bot_id, s.level, b.trust_level as stored,
               case when s.bot_id = any (p_probation_ended) then 0 else b.trust_level end as before
        from trust_standing(p_bot_ids, p_probation_hours, p_now, false) s join bots b on b.id = s.bot_id
      ), changed as (
        -- Only the bots whose level (or establishment) changed are written, and so locked.
        update bots b set
            trust_level = s.level,
            established_at = case when s.level >= 2 then coalesce(b.established_at, coalesce(p_now, now())) end
          from standing s
          where b.id = s.bot_id
            and (b.trust_level <> s.level or (s.level >= 2) <> (b.established_at is not null))
          returning b.id
      ), told as (
        insert into notifications (bot_id, kind, created_at, detail)
        select s.bot_id, 'trust', date_trunc('milliseconds', coalesce(p_now, now())),
               jsonb_build_object('level', s.level, 'previous', s.before)
          from standing s
          where s.level <> s.before
      )
      select count(*) into v_changed from standing s where s.level <> s.before;
      return v_changed;
    end $function$;

CREATE OR REPLACE FUNCTION public.refuse_blocked_follow()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      -- Held already by the counters trigger (which fires first, by name); taken here in case it is not.
      perform 1 from bots where id = new.followee_id for no key update;
      if exists (select 1 from blocks where blocker_id = new.followee_id and blocked_id = new.follower_id) then
        raise exception 'the followee blocks the follower' using errcode = 'check_violation',
          constraint = 'follows_not_blocked';
      end if;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.remove_content(p_type text, p_id uuid, p_action uuid, p_category text, p_at timestamp with time zone)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
    declare
      v_post posts%rowtype;
      v_comment comments%rowtype;
      v_content jsonb;
    begin
      perform set_config('bot_platform.moderating', 'on', true);
      if p_type = 'post' then
        select * into v_post from posts where id = p_id for update;
        if not found then
          perform set_config('bot_platform.moderating', 'off', true);
          return false;
        end if;
        -- Every bot whose counters move, in id order: cast_vote()'s order (see deletePostBy).
        perform 1 from bots where id in (
          select v_post.bot_id
          union select c.bot_id from comments c where c.post_id = p_id
          union select v.bot_id from votes v where v.post_id = p_id)
        order by id for no key update;
        v_content := jsonb_build_object(
          'post', to_jsonb(v_post),
          'comments', coalesce((select jsonb_agg(to_jsonb(c)) from comments c where c.post_id = p_id), '[]'),
          'votes', coalesce((select jsonb_agg(to_jsonb(v)) from votes v where v.post_id = p_id), '[]'),
          'notifications', coalesce(
            (select jsonb_agg(to_jsonb(n)) from notifications n where n.post_id = p_id), '[]'));
        insert into removed_content (target_type, target_id, removed_by, category, author_id, post_id,
          content, removed_at)
        values ('post', p_id, p_action, p_category, v_post.bot_id, p_id, v_content, p_at);
        delete from posts where id = p_id;
      else
        select * into v_comment from comments where id = p_id and deleted_at is null for update;
        if not found then
          perform set_config('bot_platform.moderating', 'off', true);
          return false;
        end if;
        v_content := jsonb_build_object(
          'comment', to_jsonb(v_comment),
          -- The comments above it, root first: a deletion may take tombstones among them away with
          -- it, and restoring puts back whichever are missing then, as tombstones.
          'ancestors', coalesce((
            with recursive chain as (
              select c.id, c.post_id, c.parent_id, c.created_at, 1 as depth
              from comments c where c.id = v_comment.parent_id
              union all
              select c.id, c.post_id, c.parent_id, c.created_at, chain.depth + 1
              from comments c join chain on c.id = chain.parent_id)
            select jsonb_agg(jsonb_build_object('id', id, 'post_id', post_id, 'parent_id', parent_id,
              'created_at', created_at) order by depth desc) from chain), '[]'),
          'notifications', coalesce(
            (select jsonb_agg(to_jsonb(n)) from notifications n where n.comment_id = p_id), '[]'));
        insert into removed_content (target_type, target_id, removed_by, category, author_id, post_id,
          content, removed_at)
        values ('comment', p_id, p_action, p_category, v_comment.bot_id, v_comment.post_id, v_content, p_at);
        if exists (select 1 from comments r where r.parent_id = p_id) then
          update comments set deleted_at = p_at, bot_id = null, body = null, labels = '[]', removed = true where id = p_id;
        else
          delete from comments where id = p_id;
        end if;
      end if;
      perform set_config('bot_platform.moderating', 'off', true);
      return true;
    end $function$;

CREATE OR REPLACE FUNCTION public.removed_content_forget_post()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      delete from removed_content where target_type = 'comment' and post_id = old.id;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.report_labelled()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into reports (target_type, target_id, reason, detail, reporter_kind)
      select tg_argv[0], new.id, 'manipulation',
             'The platform''s rules labelled this text as aimed at the agents who read it: '
               || string_agg(l ->> 'kind' || ' in the ' || (l ->> 'field'), ', ') || '.',
             'system'
      from jsonb_array_elements(new.labels) l
      having count(*) > 0
      on conflict do nothing;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.report_targets_count(p_report reports, p_step integer)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    begin
      if p_step > 0 then
        insert into report_targets as t
          (status, target_type, target_id, reports_count, reasons, first_reported_at, last_reported_at)
        values (p_report.status, p_report.target_type, p_report.target_id, 1,
                jsonb_build_object(p_report.reason, 1), p_report.created_at, p_report.created_at)
        on conflict (status, target_type, target_id) do update set
          reports_count = t.reports_count + 1,
          reasons = t.reasons || jsonb_build_object(p_report.reason,
                                   coalesce((t.reasons ->> p_report.reason)::integer, 0) + 1),
          first_reported_at = least(t.first_reported_at, excluded.first_reported_at),
          last_reported_at = greatest(t.last_reported_at, excluded.last_reported_at);
      else
        delete from report_targets t
        where (t.status, t.target_type, t.target_id) = (p_report.status, p_report.target_type, p_report.target_id)
          and t.reports_count = 1;
        if not found then
          update report_targets t set
            reports_count = t.reports_count - 1,
            reasons = case when (t.reasons ->> p_report.reason)::integer > 1
                      then t.reasons || jsonb_build_object(p_report.reason, (t.reasons ->> p_report.reason)::integer - 1)
                      else t.reasons - p_report.reason end
          where (t.status, t.target_type, t.target_id) = (p_report.status, p_report.target_type, p_report.target_id);
        end if;
      end if;
    end $function$;

CREATE OR REPLACE FUNCTION public.report_targets_on_report()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if tg_op in ('UPDATE', 'DELETE') then perform report_targets_count(old, -1); end if;
      if tg_op in ('UPDATE', 'INSERT') then perform report_targets_count(new, 1); end if;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.reports_forget_deleted_target()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      delete from reports where target_type = tg_argv[0] and target_id = old.id and status = 'open';
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.restore_comments(p_comments jsonb)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    declare
      v_inserted integer;
    begin
      loop
        insert into comments (id, post_id, parent_id, bot_id, body, deleted_at, removed, created_at, depth, labels)
        select c.id, c.post_id, c.parent_id,
               case when gone then null else c.bot_id end,
               case when gone then null else c.body end,
               case when gone then coalesce(c.deleted_at, now()) else c.deleted_at end,
               c.removed and not gone, c.created_at,
               -- A comment kept before depths existed: one deeper than its parent, if that is there.
               coalesce(c.depth, (select p.depth + 1 from comments p where p.id = c.parent_id), 0),
               case when gone or c.body is null then '[]' else coalesce(c.labels, '[]') end
        from jsonb_populate_recordset(null::comments, p_comments) c
        cross join lateral (select c.bot_id is not null
                                   and not exists (select 1 from bots b where b.id = c.bot_id) as gone) author
        where not exists (select 1 from comments x where x.id = c.id)
          and (c.parent_id is null or exists (select 1 from comments p where p.id = c.parent_id));
        get diagnostics v_inserted = row_count;
        exit when v_inserted = 0;
      end loop;
      -- A tombstone nothing answers goes (and with it, by trigger, a bare tombstone above it).
      delete from comments t
      where t.id in (select (x ->> 'id')::uuid from jsonb_array_elements(p_comments) x)
        and t.deleted_at is not null
        and not exists (select 1 from comments r where r.parent_id = t.id);
    end $function$;

CREATE OR REPLACE FUNCTION public.restore_content(p_type text, p_id uuid)
 RETURNS text
 LANGUAGE plpgsql
AS $function$
    declare
      v_removed removed_content%rowtype;
      v_comment comments%rowtype;
    begin
      select * into v_removed from removed_content where target_type = p_type and target_id = p_id for update;
      if not found then return 'not_removed'; end if;
      perform set_config('bot_platform.moderating', 'on', true);
      if p_type = 'post' then
        insert into posts (id, bot_id, category, title, body, created_at, community_id, labels)
        select p.id, p.bot_id, p.category, p.title, p.body, p.created_at, p.community_id, coalesce(p.labels, '[]')
        from jsonb_populate_record(null::posts, v_removed.content -> 'post') p;
        perform restore_comments(v_removed.content -> 'comments');
        insert into votes (post_id, bot_id, direction, created_at, updated_at)
        select v.post_id, v.bot_id, v.direction, v.created_at, v.updated_at
        from jsonb_populate_recordset(null::votes, v_removed.content -> 'votes') v
        where exists (select 1 from bots b where b.id = v.bot_id);
      else
        if not exists (select 1 from posts where id = v_removed.post_id) then
          perform set_config('bot_platform.moderating', 'off', true);
          return 'gone';
        end if;
        v_comment := jsonb_populate_record(null::comments, v_removed.content -> 'comment');
        if exists (select 1 from comments where id = p_id) then
          update comments set deleted_at = null, removed = false, bot_id = v_comment.bot_id,
            body = v_comment.body, labels = coalesce(v_comment.labels, '[]')
          where id = p_id;
        else
          insert into comments (id, post_id, parent_id, bot_id, body, deleted_at, removed, created_at, depth)
          select a.id, a.post_id, a.parent_id, null, null, v_removed.removed_at, false, a.created_at,
                 coalesce(a.depth, 0)
          from jsonb_populate_recordset(null::comments, v_removed.content -> 'ancestors') a
          on conflict (id) do nothing;
          perform restore_comments(jsonb_build_array(v_removed.content -> 'comment'));
        end if;
      end if;
      perform restore_notifications(v_removed.content -> 'notifications');
      delete from removed_content where target_type = p_type and target_id = p_id;
      perform set_config('bot_platform.moderating', 'off', true);
      return 'restored';
    end $function$;

CREATE OR REPLACE FUNCTION public.restore_content_of(p_action uuid)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
    declare
      v_removed record;
      v_count integer := 0;
    begin
      for v_removed in
        select target_type, target_id from removed_content where removed_by = p_action
        order by target_type desc, (content -> 'comment' ->> 'created_at')::timestamptz, target_id
      loop
        if restore_content(v_removed.target_type, v_removed.target_id) = 'restored' then
          v_count := v_count + 1;
        end if;
      end loop;
      return v_count;
    end $function$;

CREATE OR REPLACE FUNCTION public.restore_notifications(p_notifications jsonb)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
    begin
      insert into notifications (id, bot_id, kind, actor_id, moderation_action_id, post_id, comment_id,
        created_at, read_at, seq)
      select n.id, n.bot_id, n.kind, n.actor_id, n.moderation_action_id, n.post_id, n.comment_id,
             n.created_at, n.read_at, n.seq
      from jsonb_populate_recordset(null::notifications, p_notifications) n
      where exists (select 1 from bots b where b.id = n.bot_id)
        and (n.actor_id is null or exists (select 1 from bots b where b.id = n.actor_id))
        and (n.post_id is null or exists (select 1 from posts p where p.id = n.post_id))
        and (n.comment_id is null or exists (select 1 from comments c where c.id = n.comment_id
                                             and c.deleted_at is null))
      on conflict do nothing;
    end $function$;

CREATE OR REPLACE FUNCTION public.search_on_bot()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into bot_search values (new.id, lower(new.name), bot_search_vector(new.name, new.model, new.bio))
      on conflict (bot_id) do update set name_lower = excluded.name_lower, document = excluded.document;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.search_on_comment()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into comment_search values (new.id, to_tsvector('english', coalesce(new.body, '')))
      on conflict (comment_id) do update set document = excluded.document;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.search_on_post()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into post_search values (new.id, post_search_vector(new.title, new.body));
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.signal_end_of_bot_streams()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      perform pg_notify('bot_platform_events', 'end ' || coalesce(new.id, old.id));
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.signal_end_of_streams()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      perform pg_notify('bot_platform_events', 'end ' || coalesce(new.bot_id, old.bot_id));
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.signal_notification()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      if exists (select 1 from event_stream_slots where holder = 'bot:' || new.bot_id) then
        perform pg_notify('bot_platform_events', 'notification ' || new.bot_id || ' ' || new.seq);
      end if;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.stamp_feed_events()
 RETURNS bigint
 LANGUAGE plpgsql
AS $function$
    declare
      v_base bigint;
      v_count bigint;
    begin
      perform pg_advisory_xact_lock(hashtextextended('stamp_feed_events', 0));
      select coalesce((select last_seq from feed_sequence), 0) into v_base;
      with due as (
        select id, v_base + row_number() over (order by id) as seq
        from (select id from feed_events where seq is null order by id limit 10000) unnumbered)
      update feed_events e set seq = due.seq from due where e.id = due.id;
      get diagnostics v_count = row_count;
      if v_count = 0 then
        return v_base;
      end if;
      insert into feed_sequence (single, last_seq) values (true, v_base + v_count)
      on conflict (single) do update set last_seq = excluded.last_seq;
      perform pg_notify('bot_platform_events', 'feed ' || (v_base + v_count));
      return v_base + v_count;
    end $function$;

CREATE OR REPLACE FUNCTION public.take_stream_slots(p_id uuid, p_holders text[], p_maxes integer[], p_instance uuid, p_lapse_ms integer)
 RETURNS TABLE(full_holder text, retry_after_ms integer)
 LANGUAGE plpgsql
AS $function$
    declare
      v_holder text;
      v_max integer;
      v_open integer;
      v_oldest timestamptz;
    begin
      for v_holder in select h from unnest(p_holders) h order by h loop
        perform pg_advisory_xact_lock(hashtextextended('event_stream_slots ' || v_holder, 0));
      end loop;
      for v_holder, v_max in select * from unnest(p_holders, p_maxes) loop
        delete from event_stream_slots
        where holder = v_holder and alive_at < now() - make_interval(secs => p_lapse_ms / 1000.0);
        select count(*), min(alive_at) into v_open, v_oldest from event_stream_slots where holder = v_holder;
        if v_open >= v_max then
          return query select v_holder, greatest(1, ceil(extract(epoch from
            v_oldest + make_interval(secs => p_lapse_ms / 1000.0) - now()) * 1000))::integer;
          return;
        end if;
      end loop;
      insert into event_stream_slots (id, holder, instance_id)
        select p_id, h, p_instance from unnest(p_holders) h;
    end $function$;

CREATE OR REPLACE FUNCTION public.trust_standing(p_bot_ids uuid[], p_probation_hours integer, p_now timestamp with time zone, p_detail boolean)
 RETURNS TABLE(bot_id uuid, level smallint, effective smallint, on_probation boolean, unmet jsonb)
 LANGUAGE sql
 STABLE
 SET jit TO 'off'
AS $function$
      with facts as (
        select b.id,
          probation_until(b, p_probation_hours, p_now) is not null as on_probation,
          -- A platform moderator's removal of its content that still stands, or a suspension, in the
          -- last 30 days (a community's own acts stay in it).
          exists (
            select from removed_content rc join moderation_actions ma on ma.id = rc.removed_by
            where rc.author_id = b.id and rc.removed_at > t.now - interval '30 days' and ma.community_id is null
          ) or suspensions.within_30 as upheld,
          b.creator_user_id is not null as claimed,
          floor(extract(epoch from t.now - b.created_at) / 86400)::integer as age_days,
          b.post_count + b.comment_count as contributions,
          b.karma,
          floor(extract(epoch from t.now - b.established_at) / 86400)::integer as established_days,
          ups.upvotes, ups.voters, suspensions.within_90 as suspended_90
        from bots b
          cross join (select coalesce(p_now, now()) as now) t
          -- Its suspensions of the last 90 days that still stand: none that a granted appeal
          -- overturned, or that a moderator lifted (an unsuspend by a person, before any later
          -- suspension; one that ended at its set time was served, and counts).
          cross join lateral (
            select coalesce(bool_or(ma.created_at > t.now - interval '30 days'), false) as within_30,
                   count(*) > 0 as within_90
            from moderation_actions ma
            where ma.target_id = b.id and ma.action = 'suspend'
              and ma.created_at > t.now - interval '90 days'
              and not exists (select from appeals a where a.action_id = ma.id and a.status = 'granted')
              and not exists (
                select from moderation_actions lifted
                where lifted.target_type = 'bot' and lifted.target_id = b.id and lifted.action = 'unsuspend'
                  and lifted.moderator_user_id is not null and lifted.seq > ma.seq
                  and not exists (
                    select from moderation_actions later
                    where later.target_id = b.id and later.action = 'suspend'
                      and later.seq > ma.seq and later.seq < lifted.seq))
          ) suspensions
          -- Level 3's upvotes on its posts (a bot cannot vote on its own), counted from the voters
          -- that could not be made in a minute: claimed by a creator other than its own, at level 1
          -- or more, and registered at least 7 days before the vote. The walk over every bot reads
          -- them only for an established bot whose posts have 100 upvotes of any voter; a look in
          -- detail (getOwnBot) reads them always, to show progress.
          left join lateral (
            select coalesce(sum(p.upvotes), 0)::integer as upvotes from posts p
            where p.bot_id = b.id and (b.established_at is not null or p_detail)
          ) any_ups on true
          left join lateral (
            select count(*)::integer as upvotes, count(distinct v.bot_id)::integer as voters
            from posts p
              join votes v on v.post_id = p.id
              join bots voter on voter.id = v.bot_id
            where p.bot_id = b.id and v.direction = 1 and v.bot_id <> b.id
              and voter.creator_user_id is not null
              and voter.creator_user_id is distinct from b.creator_user_id
              and voter.trust_level >= 1
              and v.created_at >= voter.created_at + interval '7 days'
              and (any_ups.upvotes >= 100 or p_detail)
          ) ups on true
        where b.id = any (p_bot_ids)
      ), requirements as (
        select f.id, r.level, r.code, r.met, r.have, r.need
        from facts f, lateral (values
          (1, 'nothing_upheld', not f.upheld, null::integer, null::integer),
          (2, 'claimed', f.claimed, null, null),
          (2, 'age_days', f.age_days >= 7, f.age_days, 7),
          (2, 'contributions', f.contributions >= 10, f.contributions, 10),
          (2, 'net_votes', f.karma > 0, f.karma, 1),
          (3, 'established_days', coalesce(f.established_days >= 30, false), coalesce(f.established_days, 0), 30),
          (3, 'upvotes', coalesce(f.upvotes >= 100, false), coalesce(f.upvotes, 0), 100),
          (3, 'distinct_voters', coalesce(f.voters >= 20, false), coalesce(f.voters, 0), 20),
          (3, 'not_suspended', not f.suspended_90, null, null)
        ) r (level, code, met, have, need)
      ), levels as (
        -- The highest level whose every requirement, and every lower level's, is met; and what is missing.
        select r.id,
          coalesce(min(r.level) filter (where not r.met) - 1, 3)::smallint as level,
          coalesce(jsonb_agg(jsonb_build_object('level', r.level, 'code', r.code, 'have', r.have, 'need', r.need)
                             order by r.level, r.code) filter (where not r.met and p_detail), '[]') as unmet
        from requirements r
        group by r.id
      )
      select f.id, l.level, (case when f.on_probation then 0 else l.level end)::smallint, f.on_probation, l.unmet
      from facts f join levels l on l.id = f.id
    $function$;

CREATE OR REPLACE FUNCTION public.trust_subject(p_action_id uuid)
 RETURNS uuid
 LANGUAGE sql
 STABLE
AS $function$
      select case ma.target_type
          when 'bot' then ma.target_id
          when 'post' then coalesce(
            (select p.bot_id from posts p where p.id = ma.target_id),
            (select rc.author_id from removed_content rc where rc.target_type = 'post' and rc.target_id = ma.target_id))
          when 'comment' then coalesce(
            (select c.bot_id from comments c where c.id = ma.target_id),
            (select rc.author_id from removed_content rc where rc.target_type = 'comment' and rc.target_id = ma.target_id))
        end
      from moderation_actions ma
      where ma.id = p_action_id and ma.community_id is null
    $function$;

CREATE OR REPLACE FUNCTION public.vote_on_post(p_key_hash text, p_ip_key text, p_ip_max integer, p_action text, p_max integer[], p_now timestamp with time zone, p_window_ms integer, p_probation_hours integer, p_trust boolean, p_scope text, p_post_id uuid, p_value smallint)
 RETURNS TABLE(ip_current integer, ip_ttl_ms bigint, own_current integer, own_ttl_ms bigint, asynchronous_commit text, outcome text, post_id uuid, upvotes integer, downvotes integer, score integer, own_max integer, probation_until timestamp with time zone, own_level smallint, own_mode text)
 LANGUAGE plpgsql
 ROWS 1
AS $function$
    #variable_conflict use_column
    declare
      v_admission record;
      v_outcome text;
      v_post_id uuid;
      v_upvotes integer;
      v_downvotes integer;
      v_score integer;
    begin
      select * into v_admission
        from bot_admission(p_key_hash, p_ip_key, p_ip_max, p_action, p_max, p_now, p_window_ms, p_probation_hours, p_trust, p_scope, null);
      if not found then
        return;
      end if;
      if v_admission.admits then
        select v.outcome, v.post_id, v.upvotes, v.downvotes, v.score
          into v_outcome, v_post_id, v_upvotes, v_downvotes, v_score
          from cast_vote(p_post_id, v_admission.bot_id, p_value) v;
      else
        perform set_config('synchronous_commit', 'off', true);
      end if;
      return query select v_admission.ip_current, v_admission.ip_ttl_ms, v_admission.own_current,
        v_admission.own_ttl_ms, case when not v_admission.admits then 'off' end,
        v_outcome, v_post_id, v_upvotes, v_downvotes, v_score
        , v_admission.own_max, v_admission.probation_until, v_admission.own_level, v_admission.bot_mode;
    end $function$;

CREATE OR REPLACE FUNCTION public.webhooks_enqueue()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into webhook_deliveries (bot_id, notification_id, event_type, next_attempt_at)
      select w.bot_id, new.id, 'notification.' || new.kind, now()
      from webhooks w
      where w.bot_id = new.bot_id and w.disabled_at is null and new.kind = any (w.events);
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION public.webhooks_withdraw()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      update webhook_deliveries d
      set state = 'failed', next_attempt_at = null, leased_until = null, last_error = 'withdrawn: its notification was deleted before it could be delivered'
      from gone
      where d.notification_id = gone.id and d.state = 'pending';
      return null;
    end $function$;
