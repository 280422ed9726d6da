import { z } from 'zod';
import { SettingsPatchSchema, SettingsSchema } from './settings';
import { AppStatusSchema, OffscreenStatusSchema } from './status';
import { weightsSnapshotSchema } from '../weights/state';
import { memorySchema } from '../memory/fact-memory';
import { cachedVerdictSchema } from '../tts/self-test';
import { ENGINE_STATES } from '../engine/types';
import { PERSONAL_EVENTS, PERSONAL_REQUESTS } from './personal';
import { TUNABLES_EVENTS, TUNABLES_REQUESTS } from './tunables';
import { testHookRequests, type TestHookRequests } from './test-hooks';
import { TEST_HOOKS } from '../build-flags';

/** Contexts that answer requests. UIs (side panel, popup) only send requests and receive events. */
export const TargetSchema = z.enum(['background', 'offscreen']);
export type Target = z.infer<typeof TargetSchema>;

const Empty = z.object({}).strict();

const BundleIds = z.array(z.string().min(1).max(100)).min(1).max(16);
const BaseUrl = z.string().max(2048).nullable();

export const DownloadProgressSchema = z.object({
  bundleId: z.string(),
  path: z.string(),
  fileBytes: z.number().nonnegative(),
  fileTotal: z.number().nonnegative(),
  bytes: z.number().nonnegative(),
  total: z.number().nonnegative(),
  speedBps: z.number().nonnegative(),
  etaSeconds: z.number().nonnegative().nullable(),
});

const ConversationText = z.string().trim().min(1).max(4000);

/** Which models to load and where they run; the background fills it from the settings. */
const ModelChoice = z
  .object({ asr: z.enum(['moonshine', 'whisper']), device: z.enum(['auto', 'wasm']), language: z.string().regex(/^[a-z]{2}$/) })
  .strict();
export type ModelChoiceValue = z.infer<typeof ModelChoice>;

/** What the background adds when it relays a download or delete: the mirror to fetch from (null: the hub). */
const MirrorContext = z.object({ baseUrl: BaseUrl }).strict();
/** What the background adds when it relays a conversation command: the mirror and the models chosen in the settings. */
const EngineContext = z.object({ baseUrl: BaseUrl, models: ModelChoice }).strict();

/** A tool result as it crosses contexts; the card is rendered defensively by the side panel. */
export const ToolResultSchema = z.object({
  ok: z.boolean(),
  tool: z.enum(['get_weather', 'wikipedia_lookup', 'calculate', 'get_time']),
  speech: z.string().max(2000),
  card: z.record(z.string(), z.unknown()).optional(),
  kind: z.string().optional(),
  detail: z.string().optional(),
});

export const ToolCallSchema = z.object({
  name: z.enum(['get_weather', 'wikipedia_lookup', 'calculate', 'get_time']),
  arguments: z.record(z.string(), z.unknown()),
});

export const ShowSectionSchema = z
  .object({
    /** The address the answer was read from (no query or fragment): the tab must still show it. */
    url: z.string().max(4_000),
    heading: z.string().max(1_000),
    snippet: z.string().max(1_000),
    /** A PDF's source: open the viewer at this page (docs/tools.md, "PDFs"). */
    page: z.number().int().min(1).max(1_000_000).optional(),
    /** A video's source: seek the video to this time, in seconds (docs/tools.md, "Videos"). */
    seconds: z.number().min(0).max(1_000_000).optional(),
  })
  .strict();
export const ShowSectionResultSchema = z.object({ ok: z.boolean(), message: z.string().max(500).optional() });

export const PageReadSchema = z.union([
  z.object({
    ok: z.literal(true),
    page: z.object({
      title: z.string(),
      url: z.string(),
      lang: z.string(),
      selection: z.string(),
      text: z.string(),
      kind: z.enum(['selection', 'article', 'fallback', 'empty', 'pdf', 'video']),
      truncated: z.boolean(),
    }),
  }),
  // A PDF tab: the background fetched the file; the offscreen document reads it with pdf.js (docs/tools.md, "PDFs").
  z.object({
    ok: z.literal(true),
    pdf: z.object({
      title: z.string().max(1_000),
      url: z.string().max(4_000),
      /** The file, base64 (at most page.maxPdfBytes before encoding). */
      data: z.string().max(56_000_000),
    }),
  }),
  z.object({ ok: z.literal(false), message: z.string(), reason: z.string().max(40).optional() }),
]);

/** A PDF file the user opened in the panel for the tab that shows it (Chrome lets no extension read file:// PDFs). */
export const LocalPdfSchema = z
  .object({
    name: z.string().max(1_000),
    /** The file, base64 (at most page.maxPdfBytes before encoding). */
    data: z.string().min(1).max(56_000_000),
  })
  .strict();

export const TtsVerdictSchema = cachedVerdictSchema;

export const EngineStateSchema = z.enum(ENGINE_STATES);

/**
 * Every request between contexts: its receiving context, its payload and the shape of its answer. Both directions
 * are validated: the receiver parses the request, the sender parses the answer.
 *
 * A request with `via` is relayed: a UI sends it to the `via` context, which does its part (makes sure the offscreen
 * document exists, keeps its own books) and forwards the same type and payload to `target`, adding the `context`
 * declared here (validated by the target like the payload). One name from the UI to the handler: relays forward,
 * they do not rename. See router.ts (`Relays`) and validate.ts (which hop may carry what).
 */
export const REQUESTS = {
  'settings/get': { target: 'background', payload: Empty, result: SettingsSchema },
  'settings/set': { target: 'background', payload: z.object({ patch: SettingsPatchSchema }).strict(), result: SettingsSchema },
  'status/get': { target: 'background', payload: Empty, result: AppStatusSchema },
  'offscreen/ensure': { target: 'background', payload: Empty, result: AppStatusSchema },
  'listening/toggle': { target: 'background', payload: Empty, result: SettingsSchema },
  /** The background's own answer: the last weights snapshot it persisted (null before the first), at once. */
  'weights/state': { target: 'background', payload: Empty, result: weightsSnapshotSchema.nullable() },
  /** Pocket TTS WebGPU self-test verdicts per adapter/driver/bundle, kept by the background (chrome.storage). */
  'tts/verdicts': { target: 'background', payload: Empty, result: z.record(z.string().max(600), TtsVerdictSchema) },
  'tts/verdict': {
    target: 'background',
    payload: z.object({ key: z.string().min(1).max(600), verdict: TtsVerdictSchema }).strict(),
    result: Empty,
  },
  'weights/download': {
    target: 'offscreen',
    via: 'background',
    payload: z.object({ bundleIds: BundleIds }).strict(),
    context: MirrorContext,
    result: z.object({ queued: z.array(z.string()) }),
  },
  'weights/cancel': { target: 'offscreen', via: 'background', payload: Empty, result: Empty },
  'weights/delete': {
    target: 'offscreen',
    via: 'background',
    payload: z.object({ bundleId: z.string().min(1).max(100) }).strict(),
    context: MirrorContext,
    result: z.object({ freedBytes: z.number() }),
  },
  'weights/snapshot': { target: 'offscreen', payload: z.object({ baseUrl: BaseUrl }).strict(), result: weightsSnapshotSchema },
  'conversation/start': {
    target: 'offscreen',
    payload: z.object({ baseUrl: BaseUrl, characterId: z.string().max(64).optional(), models: ModelChoice.optional() }).strict(),
    result: Empty,
  },
  'conversation/stop': { target: 'offscreen', payload: Empty, result: Empty },
  'vision/set': { target: 'offscreen', payload: z.object({ on: z.boolean(), baseUrl: BaseUrl }).strict(), result: Empty },
  'conversation/text': {
    target: 'offscreen',
    via: 'background',
    payload: z.object({ text: ConversationText, characterId: z.string().max(64).optional() }).strict(),
    context: EngineContext,
    result: Empty,
  },
  'conversation/interrupt': { target: 'offscreen', via: 'background', payload: Empty, result: Empty },
  /**
   * The end of the first-run welcome: load the models and have the active character say its greeting aloud.
   * Answers once the greeting is on its way (its caption and audio follow as for any turn).
   */
  'conversation/greet': { target: 'offscreen', via: 'background', payload: Empty, context: EngineContext, result: Empty },
  'conversation/ptt': {
    target: 'offscreen',
    via: 'background',
    payload: z.object({ down: z.boolean() }).strict(),
    context: EngineContext,
    result: Empty,
  },
  'memory/get': { target: 'background', payload: Empty, result: memorySchema },
  'memory/forget': {
    target: 'background',
    payload: z.union([z.object({ index: z.number().int().nonnegative() }).strict(), z.object({ all: z.literal(true) }).strict()]),
    result: memorySchema,
  },
  /** What is remembered and whether the user's memory switch is on (the engine neither learns nor uses facts when off). */
  'memory/set': {
    target: 'offscreen',
    payload: z.object({ memory: memorySchema, enabled: z.boolean(), forgetConversation: z.boolean().optional() }).strict(),
    result: Empty,
  },
  'tools/run': { target: 'background', payload: z.object({ call: ToolCallSchema }).strict(), result: ToolResultSchema },
  'page/read': { target: 'background', payload: Empty, result: PageReadSchema },
  /** A source of a page answer clicked in the panel: scroll the tab to it and highlight it (docs/tools.md). */
  'page/show-section': { target: 'background', payload: ShowSectionSchema, result: ShowSectionResultSchema },
  /** The PDF file of the user's file:// tab, opened by the user in the panel; kept for that tab's address. */
  'page/local-pdf': { target: 'background', payload: LocalPdfSchema, result: ShowSectionResultSchema },
  'offscreen/ping': { target: 'offscreen', payload: Empty, result: z.object({ startedAt: z.number() }) },
  'offscreen/status': { target: 'offscreen', payload: Empty, result: OffscreenStatusSchema },
  ...PERSONAL_REQUESTS,
  ...TUNABLES_REQUESTS,
  // Probes, fault injection and the scripted model stand-in: absent from the release build (core/protocol/test-hooks.ts).
  ...(TEST_HOOKS ? testHookRequests() : ({} as TestHookRequests)),
} as const satisfies Record<string, RequestDefinition>;

/** `via` and `context` only on relayed requests; a `context` needs a `via` (only the relaying context adds one). */
export interface RequestDefinition {
  target: Target;
  via?: Target;
  payload: z.ZodType;
  context?: z.ZodType;
  result: z.ZodType;
}

export type RequestType = keyof typeof REQUESTS;
export type RequestPayload<T extends RequestType> = z.infer<(typeof REQUESTS)[T]['payload']>;
export type RequestResult<T extends RequestType> = z.infer<(typeof REQUESTS)[T]['result']>;
/** What the relaying context adds to a relayed request; undefined for a request that declares none. */
export type RequestContext<T extends RequestType> = (typeof REQUESTS)[T] extends { context: infer C extends z.ZodType }
  ? z.infer<C>
  : undefined;
/** The requests relayed through `V` (a UI addresses them to V, which forwards them to their target). */
export type RelayedThrough<V extends Target> = {
  [K in RequestType]: (typeof REQUESTS)[K] extends { via: V } ? K : never;
}[RequestType];

/** The definition seen through its optional fields (the `as const` table leaves them off where absent). */
export function definitionOf(type: RequestType): RequestDefinition {
  return REQUESTS[type];
}

interface OneRequest<T extends RequestType> {
  kind: 'request';
  type: T;
  /** The context this message is addressed to: a relayed request's `via` on its first hop, its `target` after. */
  target: Target;
  payload: RequestPayload<T>;
  /** Set on the forwarded hop of a relayed request: the context that relayed it (the definition's `via`). */
  relayedBy?: Target;
  /** The relaying context's addition, on the forwarded hop of a request that declares one. */
  context?: RequestContext<T>;
}

/** A union over every request type, so checking `type` narrows `payload`. */
export type RequestMessage<T extends RequestType = RequestType> = { [K in T]: OneRequest<K> }[T];

/** Events are broadcast (runtime messaging) and need no answer. */
export const EVENTS = {
  'event/status': z.object({ status: AppStatusSchema }).strict(),
  'event/settings': z.object({ settings: SettingsSchema }).strict(),
  'event/offscreen-ready': z.object({ status: OffscreenStatusSchema }).strict(),
  /** The engine's status changed while it runs (e.g. where the voice runs): update the snapshot, nothing else. */
  'event/offscreen-status': z.object({ status: OffscreenStatusSchema }).strict(),
  'event/weights-progress': z.object({ progress: DownloadProgressSchema }).strict(),
  'event/weights-snapshot': z.object({ snapshot: weightsSnapshotSchema }).strict(),
  'event/engine-state': z.object({ state: EngineStateSchema, detail: z.string().max(500).optional() }).strict(),
  'event/caption': z
    .object({
      role: z.enum(['user', 'assistant']),
      text: z.string().max(8000),
      final: z.boolean(),
      turnId: z.string().max(64),
      /** A merged continuation: this user line replaces the earlier partial line of that turn (docs/onboarding.md). */
      replaces: z.string().max(64).optional(),
    })
    .strict(),
  'event/memory': z.object({ memory: memorySchema }).strict(),
  'event/card': z.object({ card: z.record(z.string(), z.unknown()).nullable() }).strict(),
  'event/notice': z.object({ level: z.enum(['info', 'error']), message: z.string().max(500) }).strict(),
  ...PERSONAL_EVENTS,
  ...TUNABLES_EVENTS,
} as const satisfies Record<string, z.ZodType>;

export type EventType = keyof typeof EVENTS;
export type EventPayload<T extends EventType> = z.infer<(typeof EVENTS)[T]>;

interface OneEvent<T extends EventType> {
  kind: 'event';
  type: T;
  payload: EventPayload<T>;
}

/** A union over every event type, so checking `type` narrows `payload`. */
export type EventMessage<T extends EventType = EventType> = { [K in T]: OneEvent<K> }[T];

export const ProtocolErrorSchema = z.object({
  code: z.enum(['malformed', 'unknown_type', 'wrong_target', 'handler_failed', 'timeout', 'unavailable', 'forbidden']),
  message: z.string(),
});

export type Reply<T> = { ok: true; data: T } | { ok: false; error: z.infer<typeof ProtocolErrorSchema> };

/** A request as its sender puts it on the wire: addressed to its `via` context when it is relayed, else its target. */
export function requestMessage<T extends RequestType>(type: T, payload: RequestPayload<T>): RequestMessage<T> {
  const def = definitionOf(type);
  return { kind: 'request', type, target: def.via ?? def.target, payload } as RequestMessage<T>;
}

/**
 * The forwarded hop of a relayed request: the same type and payload, now addressed to the target, marked with the
 * context that relayed it and carrying that context's addition. Only the relaying context builds these.
 */
export function relayedMessage<T extends RequestType>(
  type: T,
  payload: RequestPayload<T>,
  context: RequestContext<T>,
): RequestMessage<T> {
  const def = definitionOf(type);
  if (!def.via) throw new Error(`"${type}" is not a relayed request`);
  return {
    kind: 'request',
    type,
    target: def.target,
    relayedBy: def.via,
    payload,
    ...(context === undefined ? {} : { context }),
  } as RequestMessage<T>;
}

export function eventMessage<T extends EventType>(type: T, payload: EventPayload<T>): EventMessage<T> {
  return { kind: 'event', type, payload } as EventMessage<T>;
}
