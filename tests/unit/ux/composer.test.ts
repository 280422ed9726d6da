// The side panel's text box (useComposer + Controls) rendered into a linkedom document: what the user types is never
// wiped by an earlier message's reply ending, and a failed message is not lost.
import { parseHTML } from 'linkedom';
import { h, render } from 'preact';
import { describe, expect, it } from 'vitest';
import { Controls } from '../../../components/conversation/Controls';
import { useComposer } from '../../../components/conversation/use-composer';

const { document, window } = parseHTML('<!doctype html><html><body></body></html>');
const settle = () => new Promise((r) => setTimeout(r, 0));

interface Pending {
  text: string;
  resolve(): void;
  reject(err: Error): void;
}

async function mountComposer() {
  const sent: Pending[] = [];
  const errors: { err: unknown; retry: () => void }[] = [];
  const send = (text: string) =>
    new Promise<void>((resolve, reject) => {
      sent.push({ text, resolve, reject });
    });
  function Harness() {
    const c = useComposer(send, (err, retry) => errors.push({ err, retry }));
    const ptt = { orbHandlers: {} } as never;
    const orb = { listening: false, live: false, starting: false, canListen: true, ready: true, ptt };
    return h(Controls, {
      orb,
      onStopListening: () => undefined,
      busy: false,
      onInterrupt: () => undefined,
      draft: c.draft,
      onDraft: c.setDraft,
      onSubmit: c.submit,
    });
  }
  const root = document.createElement('div');
  document.body.appendChild(root);
  render(h(Harness, null), root);
  await settle();
  const input = () => root.querySelector('[data-testid="composer"]') as unknown as HTMLInputElement;
  const sendButton = () => root.querySelector('button[type="submit"]') as unknown as HTMLButtonElement;
  return {
    sent,
    errors,
    box: () => input().value,
    canSend: () => !sendButton().disabled,
    async type(value: string) {
      input().value = value;
      input().dispatchEvent(new window.Event('input', { bubbles: true }));
      await settle();
    },
    async submit() {
      root.querySelector('form')!.dispatchEvent(new window.Event('submit', { bubbles: true, cancelable: true }));
      await settle();
    },
  };
}

describe('the side panel text box', () => {
  it('empties when a message is sent; a message typed during the reply survives the reply ending', async () => {
    const ui = await mountComposer();
    await ui.type('what is 12 times 12');
    await ui.submit();
    expect(ui.sent.map((s) => s.text)).toEqual(['what is 12 times 12']);
    expect(ui.box()).toBe('');
    await ui.type('tell me about the moon');
    ui.sent[0]!.resolve(); // the first reply ends while the next message waits in the box
    await settle();
    expect(ui.box()).toBe('tell me about the moon');
    expect(ui.canSend()).toBe(true);
    await ui.submit();
    expect(ui.sent.map((s) => s.text)).toEqual(['what is 12 times 12', 'tell me about the moon']);
  });

  it('a message that fails comes back into an empty box, and the retry sends it again', async () => {
    const ui = await mountComposer();
    await ui.type('hello there');
    await ui.submit();
    ui.sent[0]!.reject(new Error('engine gone'));
    await settle();
    await settle();
    expect(ui.box()).toBe('hello there');
    expect(ui.errors).toHaveLength(1);
    ui.errors[0]!.retry();
    expect(ui.sent.map((s) => s.text)).toEqual(['hello there', 'hello there']);
  });

  it('a failure never overwrites a new message the user has started; the retry still sends the failed one', async () => {
    const ui = await mountComposer();
    await ui.type('first');
    await ui.submit();
    await ui.type('second');
    ui.sent[0]!.reject(new Error('engine gone'));
    await settle();
    await settle();
    expect(ui.box()).toBe('second');
    ui.errors[0]!.retry();
    expect(ui.sent.map((s) => s.text)).toEqual(['first', 'first']);
  });

  it('an empty or blank box sends nothing', async () => {
    const ui = await mountComposer();
    await ui.type('   ');
    expect(ui.canSend()).toBe(false);
    await ui.submit();
    expect(ui.sent).toEqual([]);
  });
});
