/**
 * Errors the user sees (issue #19, "States that tell the truth"): one plain sentence and one action, whatever the
 * raw failure looked like; the raw text is kept only as the detail for the debug log.
 */
import { describe, expect, it } from 'vitest';
import { isTechnical, toUserError, UserFacingError } from '../../../core/ux/user-errors';

/** What the issue saw in the side panel, and what the protocol and workers produce on the way there. */
const RAW = {
  modelsMissing: '"conversation/text" failed: The voice models are not downloaded yet. Open Settings → Models and download them.',
  startMissing: '"conversation/start" failed: The voice models are not downloaded yet. Open Settings → Models and download them.',
  timeout: '"conversation/text" got no answer in 180000 ms',
  gone: 'Could not establish connection. Receiving end does not exist.',
  voice: 'The voice failed: RuntimeError: unreachable at wasm-function[123]:0x1f2e',
  stack: "TypeError: Cannot read properties of undefined (reading 'id')\n    at chrome-extension://abc/offscreen.js:1:2345",
  // Plain words around a request name: only the request name gives it away.
  midText: 'The background could not forward "conversation/ptt" right now.',
  malformed: 'Bad payload for "conversation/text": text: String must contain at least 1 character(s)',
};

describe('toUserError', () => {
  it('turns a missing-models failure (any wrapper) into the sentence and the download action', () => {
    for (const raw of [RAW.modelsMissing, RAW.startMissing, new Error(RAW.modelsMissing)]) {
      const e = toUserError(raw, 'send');
      expect(e.sentence).toBe('The voice models are not downloaded yet.');
      expect(e.action).toBe('download-models');
      expect(e.detail).toContain('"conversation/');
    }
  });

  it('names microphone problems in words and offers the grant', () => {
    expect(toUserError('Microphone access is blocked for Sidetalk.', 'listen')).toMatchObject({
      sentence: 'The microphone is blocked for Sidetalk.',
      action: 'grant-microphone',
    });
    expect(toUserError('NotAllowedError: Permission denied', 'listen').action).toBe('grant-microphone');
    expect(toUserError('The microphone stopped: access was revoked or it was unplugged. Listening is off.').sentence).toBe(
      'The microphone stopped, so listening is off.',
    );
  });

  it('maps protocol failures by what they mean: a timeout, an engine that is not running', () => {
    expect(toUserError(RAW.timeout, 'send')).toMatchObject({ sentence: 'Sidetalk took too long to answer.', action: 'retry' });
    expect(toUserError({ code: 'unavailable', message: RAW.gone }, 'send').sentence).toBe('Sidetalk’s engine was not running.');
  });

  it('never lets request names, codes, stack frames or exception names through', () => {
    for (const raw of [
      ...Object.values(RAW),
      { code: 'handler_failed', message: '"x/y" failed: [object Object]' },
      undefined,
      42,
    ]) {
      for (const context of ['send', 'listen', 'download', 'settings', 'general'] as const) {
        const e = toUserError(raw, context);
        expect(isTechnical(e.sentence), `${JSON.stringify(raw)} → ${e.sentence}`).toBe(false);
        expect(e.sentence).not.toMatch(/"[a-z-]+\/[a-z-]+"|Error|at chrome-extension|failed:/);
      }
    }
    expect(toUserError(RAW.stack, 'send')).toMatchObject({ sentence: 'Sidetalk could not answer that.', action: 'retry' });
    expect(toUserError(RAW.malformed, 'settings').sentence).toBe('The settings could not be saved.');
    expect(toUserError(RAW.voice).sentence).toBe('The voice could not speak that reply.');
  });

  it('keeps a handler’s own plain explanation, without the wrapper it travelled in', () => {
    const raw = '"voices/import" failed: That file is not a Sidetalk voice.';
    expect(toUserError(raw, 'general')).toMatchObject({ sentence: 'That file is not a Sidetalk voice.', action: 'none' });
    const integrity =
      'mimi_decoder.onnx did not match its pinned checksum or size, so it was discarded; everything else you downloaded is kept.';
    expect(toUserError(integrity, 'download').sentence).toBe(integrity);
    expect(toUserError('The GPU stopped responding, so Sidetalk moved to the CPU. Replies will be slower.').sentence).toMatch(
      /^The GPU stopped responding/,
    );
  });

  it('passes a UserFacingError through unchanged', () => {
    const user = { sentence: 'Already plain.', action: 'open-settings' as const, detail: 'raw' };
    expect(toUserError(new UserFacingError(user), 'send')).toBe(user);
  });
});
