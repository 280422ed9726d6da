import { describe, expect, it } from 'vitest';
import { BUILT_IN_CHARACTERS } from '../../../core/characters';
import { ActiveCharacter } from '../../../entrypoints/offscreen/character-state';
import { fakeSend } from './fakes';

const mine = { ...BUILT_IN_CHARACTERS[1]!, id: 'user:1', name: 'Mine', builtIn: false };

describe('the offscreen document’s active character', () => {
  it('starts with the default and adopts the background’s answer', async () => {
    const { send, sent } = fakeSend(() => ({ ok: true, data: mine }));
    const state = new ActiveCharacter(send);
    expect(state.current.id).toBe('builtin:sidetalk');
    await state.refresh();
    expect(state.current.id).toBe('user:1');
    expect(sent[0]).toMatchObject({ type: 'characters/get-active', target: 'background' });
  });

  it('a pushed character wins over a refresh that was in flight', async () => {
    let answer: (v: unknown) => void = () => undefined;
    const send = () => new Promise((r) => (answer = r));
    const state = new ActiveCharacter(send);
    state.set(BUILT_IN_CHARACTERS[1]!);
    answer({ ok: true, data: mine });
    await state.refresh();
    expect(state.current.id).toBe('builtin:marius');
  });

  it('keeps the current character when the background is unreachable or answers garbage', async () => {
    const state = new ActiveCharacter(fakeSend(() => undefined).send);
    await state.refresh();
    expect(state.current.id).toBe('builtin:sidetalk');
    const garbage = new ActiveCharacter(fakeSend(() => ({ ok: true, data: { id: 'x' } })).send);
    await garbage.refresh();
    expect(garbage.current.id).toBe('builtin:sidetalk');
  });

  it('a named built-in is taken at once', () => {
    const state = new ActiveCharacter(fakeSend(() => undefined).send);
    state.use('builtin:marius');
    expect(state.current.id).toBe('builtin:marius');
  });
});
