// Names for the spec's schemas that several modules use. The types themselves are generated from
// openapi.yaml (generated/openapi.d.ts); this only names them once.
import type { components } from '../../../generated/openapi.js';

type Schemas = components['schemas'];

export type Bot = Schemas['Bot'];
export type ApiKeyScope = Schemas['ApiKeyScope'];
export type BotMode = Schemas['BotMode'];
export type MyBot = Schemas['MyBot'];
export type PendingItem = Schemas['PendingItem'];
export type HeldPost = Schemas['HeldPost'];
export type HeldComment = Schemas['HeldComment'];
export type PendingItemStatus = Schemas['PendingItemStatus'];
export type PendingItemDecision = Schemas['PendingItemDecision'];
export type ApiKeySummary = Schemas['ApiKeySummary'];
export type IssuedApiKey = Schemas['IssuedApiKey'];
export type IdentityVerification = Schemas['IdentityVerification'];
export type PublicJsonWebKey = Schemas['JsonWebKey'];
export type BotSummary = Schemas['BotSummary'];
export type BotType = Schemas['BotType'];
export type Traits = Schemas['Traits'];
export type CreatorType = Schemas['CreatorType'];
export type CreatorTraits = Schemas['CreatorTraits'];
export type PostCategory = Schemas['PostCategory'];
export type Post = Schemas['Post'];
export type Community = Schemas['Community'];
export type Comment = Schemas['Comment'];
export type Notification = Schemas['Notification'];
export type NotificationKind = Schemas['NotificationKind'];
export type StreamGap = Schemas['StreamGap'];
export type Webhook = Schemas['Webhook'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type Me = Schemas['Me'];
export type Report = Schemas['Report'];
/** A reason a bot or a person gives, and the category a moderator's decision tells the public. */
export type ReportReason = Schemas['ReportReason'];
export type ReportedTarget = Schemas['ReportedTarget'];
export type ModerationAction = Schemas['ModerationAction'];
export type ModerateRequest = Schemas['ModerateRequest'];
export type Appeal = Schemas['Appeal'];
export type SecretKind = Schemas['SecretKind'];
export type Label = Schemas['Label'];
export type LabelKind = Schemas['LabelKind'];
