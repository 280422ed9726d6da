/**
 * The scripted recogniser stand-in as the room session drives it (core/conversation/scripted-transcript.ts,
 * `debug/asr-script`): how long a phrase's words are reported, and the reply's own words for its echo.
 */
import type { Page } from 'playwright-core';
import { request, sendFromPage } from '../e2e/harness';
export { REPLY_WORDS } from '../../core/conversation/scripted-transcript';

/** How long the scripted recogniser stand-in reports a phrase's words: the phrase, its endpoint and transcription. */
export const HEARD_AS_WINDOW_MS = 8000;
/** Longer than a reply and its echo's tail: the silent reply's script outlasts what it covers. */
export const ECHO_HEARD_AS_REPLY_MS = 40_000;

export interface ReplyOptions {
  /**
   * The recogniser reports the reply's latest words for whatever it transcribes while no user speaks (the scripted
   * stand-in's REPLY_WORDS): a real recogniser writes the reply's words for its echo, the fixture writes letters that
   * read as the user asking for the floor. The user's own voice is still read as its `heardAs` or the fixture's.
   */
  echoHeardAsReply?: boolean;
}
/**
 * Sets the scripted recogniser stand-in (null removes it); the number of transcriptions the previous script replaced.
 * A request it refuses fails the run: a result without the script would be read as one with it.
 */
export async function scriptTranscripts(
  panel: Page,
  text: string | null,
  forMs: number,
  otherwise: string | null = null,
): Promise<number> {
  const reply = await sendFromPage<{ ok: boolean; data?: { replaced: number }; error?: unknown }>(
    panel,
    request('debug/asr-script', 'offscreen', { text, forMs, otherwise }),
  );
  if (!reply.ok || reply.data === undefined) throw new Error(`debug/asr-script refused: ${JSON.stringify(reply.error)}`);
  return reply.data.replaced;
}
