import { describe, expect, it } from 'vitest';
import { deserializeVoice, serializeVoice, type StoredVoice } from '../../../core/tts/voice-store';
import {
  base64ToBytes,
  bytesToBase64,
  isCloneId,
  newCloneId,
  prepareVoiceImport,
  uniqueVoiceName,
  voiceFileName,
} from '../../../core/tts/voice-transfer';
import { presetVoice } from '../../fixtures/pocket/generate';

const BUNDLE = 'sidetalk-fixture/english_2026-04';
const voice: StoredVoice = {
  id: 'clone-m5x1k2a0-1a2b3c',
  name: 'Anna',
  bundleId: BUNDLE,
  createdAt: 1_700_000_000_000,
  consent: { statement: 'This is my voice, or I have the speaker’s permission to clone it.', acceptedAt: 1_700_000_000_000 },
  synthetic: true,
  tensors: presetVoice({ name: 'x', amplitude: 0.4 }, 3),
};
const file = serializeVoice(voice);
const none = new Set<string>();
const ctx = { bundleId: BUNDLE, takenIds: none, takenNames: none };

describe('voice file names', () => {
  it.each([
    ['Anna', 'Anna.stvoice'],
    ['My voice', 'My-voice.stvoice'],
    ["Anna's voice!", 'Anna-s-voice.stvoice'],
    ['../../etc/passwd', 'etc-passwd.stvoice'],
    ['Zoë_2 — Café', 'Zoë_2-Café.stvoice'],
    ['...', 'voice.stvoice'],
    ['CON:', 'CON.stvoice'],
    ['x'.repeat(120), `${'x'.repeat(60)}.stvoice`],
  ])('%j → %j', (name, expected) => {
    expect(voiceFileName(name)).toBe(expected);
  });
});

describe('base64 for runtime messaging', () => {
  it('round-trips bytes exactly, also megabytes', () => {
    const bytes = Uint8Array.from({ length: 1_500_001 }, (_, i) => (i * 131) & 255);
    // Buffer.equals: a deep toEqual over 1.5 M elements takes seconds.
    expect(Buffer.from(base64ToBytes(bytesToBase64(bytes))).equals(Buffer.from(bytes))).toBe(true);
    expect(bytesToBase64(new Uint8Array(0))).toBe('');
    expect(Buffer.from(bytesToBase64(file), 'base64').equals(Buffer.from(file))).toBe(true);
  });
});

describe('clone ids and names on import', () => {
  it('recognises the ids clone.ts makes and makes the same kind', () => {
    expect(isCloneId(voice.id)).toBe(true);
    expect(isCloneId(newCloneId(1_700_000_000_000, 0.123))).toBe(true);
    for (const id of ['alba', 'clone-', 'clone-a', 'clone-A-b', 'clone-a-b-c', 'x clone-a-b', '__proto__'])
      expect(isCloneId(id)).toBe(false);
  });

  it('numbers a name that is listed already', () => {
    expect(uniqueVoiceName('Anna', new Set(['Bob']))).toBe('Anna');
    expect(uniqueVoiceName('Anna', new Set(['Anna']))).toBe('Anna (2)');
    expect(uniqueVoiceName('Anna', new Set(['Anna', 'Anna (2)']))).toBe('Anna (3)');
    expect(uniqueVoiceName('y'.repeat(60), new Set(['y'.repeat(60)]))).toBe(`${'y'.repeat(56)} (2)`);
  });
});

describe('prepareVoiceImport', () => {
  it('stores a new voice as the very bytes of the file (consent and all)', () => {
    const out = prepareVoiceImport(file, ctx);
    expect(out.bytes).toBe(file);
    expect(out.voice).toEqual({
      id: voice.id,
      name: 'Anna',
      bundleId: BUNDLE,
      createdAt: voice.createdAt,
      consent: voice.consent,
      synthetic: true,
    });
  });

  it('never overwrites: a used id gets a fresh one and the file is rewritten to match', () => {
    const out = prepareVoiceImport(file, {
      ...ctx,
      takenIds: new Set([voice.id]),
      takenNames: new Set(['Anna']),
      newId: () => 'clone-new-1',
    });
    expect(out.voice).toMatchObject({ id: 'clone-new-1', name: 'Anna (2)', consent: voice.consent });
    const back = deserializeVoice(out.bytes); // header id and payload voice name agree, or this throws
    expect(back).toMatchObject({ id: 'clone-new-1', name: 'Anna (2)', bundleId: BUNDLE, consent: voice.consent });
    expect(back.tensors.get('transformer.layers.0.self_attn/cache')!.data).toEqual(
      voice.tensors.get('transformer.layers.0.self_attn/cache')!.data,
    );
  });

  it('skips fresh ids that are taken too', () => {
    const ids = ['clone-a-1', 'clone-a-2'];
    const out = prepareVoiceImport(file, { ...ctx, takenIds: new Set([voice.id, 'clone-a-1']), newId: () => ids.shift()! });
    expect(out.voice.id).toBe('clone-a-2');
  });

  it('replaces an id that could shadow a preset voice', () => {
    const alba = serializeVoice({ ...voice, id: 'alba' });
    const out = prepareVoiceImport(alba, { ...ctx, newId: () => 'clone-b-1' });
    expect(out.voice.id).toBe('clone-b-1');
    expect(deserializeVoice(out.bytes).id).toBe('clone-b-1');
  });

  it('refuses a voice of another model when the model is known, and stores it unchecked when not loaded', () => {
    const other = serializeVoice({ ...voice, bundleId: 'other-model/french_2026-01' });
    expect(() => prepareVoiceImport(other, ctx)).toThrow(/made with another voice model \(other-model\/french_2026-01\)/);
    expect(prepareVoiceImport(other, { ...ctx, bundleId: null }).voice.bundleId).toBe('other-model/french_2026-01');
  });

  it('refuses files without consent, damaged, truncated or not a voice at all, with a readable reason', () => {
    const text = new TextDecoder().decode(file);
    const noConsent = file.slice();
    noConsent[text.indexOf('"consent"') + 1] = 'X'.charCodeAt(0); // the key renamed: no consent in the header
    expect(() => prepareVoiceImport(noConsent, ctx)).toThrow(
      'That voice file has no valid consent record (the statement the person agreed to, and when), so it can’t be imported.',
    );
    const emptyStatement = file.slice();
    const at = text.indexOf(voice.consent.statement);
    emptyStatement.fill(' '.charCodeAt(0), at, at + voice.consent.statement.length);
    expect(() => prepareVoiceImport(emptyStatement, ctx)).toThrow(/no valid consent record/);
    const badJson = file.slice();
    badJson[13] = '#'.charCodeAt(0);
    expect(() => prepareVoiceImport(badJson, ctx)).toThrow('That voice file is damaged: its header can’t be read.');
    expect(() => prepareVoiceImport(file.subarray(0, file.length - 100), ctx)).toThrow(
      /^That voice file is damaged or incomplete \(bad tensors: .*truncated/,
    );
    const v9 = file.slice();
    new DataView(v9.buffer).setUint16(7, 9, true);
    expect(() => prepareVoiceImport(v9, ctx)).toThrow(
      'That voice file comes from another version of Sidetalk (unsupported voice file version 9).',
    );
    expect(() => prepareVoiceImport(new TextEncoder().encode('{"format":"sidetalk.characters"}'), ctx)).toThrow(
      'That file isn’t a Sidetalk voice file.',
    );
    expect(() => prepareVoiceImport(new Uint8Array(0), ctx)).toThrow('That file isn’t a Sidetalk voice file.');
  });
});
