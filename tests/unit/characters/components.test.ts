// Renders the presentational components into a linkedom document and drives them through their callbacks.
import { parseHTML } from 'linkedom';
import { h, render, type ComponentChild } from 'preact';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_CHARACTERS, type Character, type CharacterDraft } from '../../../core/characters';
import type { RemoteLlmConfig } from '../../../core/remote-llm';
import { CharacterEditor, CharacterList, ModelServerSettings, type ModelServerForm } from '../../../components/characters';

const { document, window } = parseHTML('<!doctype html><html><body></body></html>');

async function mount(vnode: ComponentChild): Promise<HTMLElement> {
  const root = document.createElement('div');
  document.body.appendChild(root);
  render(vnode, root);
  await settle();
  return root as unknown as HTMLElement;
}
const settle = () => new Promise((r) => setTimeout(r, 0));
function button(root: HTMLElement, label: string): HTMLButtonElement {
  const b = [...root.querySelectorAll('button')].find(
    (x) => x.getAttribute('aria-label') === label || x.textContent?.trim() === label,
  );
  if (!b) throw new Error(`no button "${label}"`);
  return b as HTMLButtonElement;
}
function click(el: Element): void {
  el.dispatchEvent(new window.Event('click', { bubbles: true }));
}
// linkedom has no default actions: a submit button click doesn't submit, so submit the form as the browser would.
function submit(root: HTMLElement): void {
  root.querySelector('form')!.dispatchEvent(new window.Event('submit', { bubbles: true, cancelable: true }));
}
function type(input: Element, value: string): void {
  (input as HTMLInputElement).value = value;
  input.dispatchEvent(new window.Event('input', { bubbles: true }));
}

const mine: Character = { ...BUILT_IN_CHARACTERS[1]!, id: 'user:1', name: 'Mine', builtIn: false };

describe('CharacterList', () => {
  it('switches, and offers delete only for user characters', async () => {
    const calls: string[] = [];
    const root = await mount(
      h(CharacterList, {
        characters: [...BUILT_IN_CHARACTERS, mine],
        activeId: BUILT_IN_CHARACTERS[0]!.id,
        onSwitch: (id) => calls.push(`switch ${id}`),
        onEdit: () => {},
        onDuplicate: (id) => calls.push(`dup ${id}`),
        onDelete: (id) => calls.push(`delete ${id}`),
        onExport: () => {},
        onImport: () => {},
        error: "That file isn't valid JSON.",
      }),
    );
    click(button(root, 'Talk with Mine'));
    click(button(root, 'Duplicate Sidetalk'));
    click(button(root, 'Delete Mine'));
    expect(calls).toEqual(['switch user:1', 'dup builtin:sidetalk', 'delete user:1']);
    expect(() => button(root, 'Delete Sidetalk')).toThrow();
    expect(root.querySelector('[role="alert"]')?.textContent).toContain('valid JSON');
    expect(root.querySelector('[aria-current="true"]')?.textContent).toContain('Sidetalk');
  });
});

describe('CharacterEditor', () => {
  const voices = [
    { kind: 'builtin' as const, voiceId: 'alba', label: 'Alba' },
    { kind: 'builtin' as const, voiceId: 'marius', label: 'Marius' },
  ];

  it('validates before saving and passes a clean draft', async () => {
    const saved: CharacterDraft[] = [];
    const root = await mount(
      h(CharacterEditor, {
        character: mine,
        voices,
        userAvatars: [],
        onSave: (d) => saved.push(d),
        onCancel: () => {},
        onDuplicate: () => {},
      }),
    );
    const name = root.querySelector('input[type="text"]')!;
    type(name, '   ');
    await settle();
    click(button(root, 'Add pronunciation'));
    await settle();
    submit(root);
    await settle();
    expect(saved).toHaveLength(0);
    expect(root.querySelector('[role="alert"]')?.textContent).toMatch(/name/);
    type(root.querySelector('input[type="text"]')!, 'Renamed');
    await settle();
    submit(root);
    await settle();
    expect(saved).toHaveLength(1);
    expect(saved[0]!.name).toBe('Renamed');
    expect(saved[0]!.pronunciations).toEqual([]); // the empty row was dropped
  });

  it('shows built-ins read-only with a duplicate action', async () => {
    const dups: string[] = [];
    const root = await mount(
      h(CharacterEditor, {
        character: BUILT_IN_CHARACTERS[0]!,
        voices,
        userAvatars: [],
        onSave: () => {},
        onCancel: () => {},
        onDuplicate: (id) => dups.push(id),
      }),
    );
    expect((button(root, 'Save') as HTMLButtonElement).disabled).toBe(true);
    click(button(root, 'Duplicate to edit'));
    expect(dups).toEqual(['builtin:sidetalk']);
  });
});

describe('ModelServerSettings', () => {
  it('refuses credentials in the address and saves a valid config with its origin pattern', async () => {
    let form: ModelServerForm = {
      baseUrl: 'http://me:pw@localhost:11434',
      model: 'llama3.2:3b',
      apiKey: '',
      fallbackToLocal: true,
    };
    const saved: [RemoteLlmConfig, string][] = [];
    const props = () => ({
      value: form,
      onChange: (next: ModelServerForm) => {
        form = next;
      },
      models: ['llama3.2:3b'],
      connection: { state: 'idle' as const },
      onTestConnection: () => {},
      onSave: (c: RemoteLlmConfig, p: string) => saved.push([c, p]),
      onDisable: () => {},
      enabled: false,
    });
    const root = await mount(h(ModelServerSettings, props()));
    submit(root);
    await settle();
    expect(saved).toHaveLength(0);
    expect(root.querySelector('[role="alert"]')?.textContent).toBe('Put the key in the API key field, not in the address.');
    expect(root.textContent).not.toContain('pw@');

    form = { ...form, baseUrl: 'http://localhost:11434', apiKey: 'sk-1' };
    render(h(ModelServerSettings, props()), root);
    await settle();
    expect(root.textContent).toContain('http://localhost:11434/*');
    expect((root.querySelector('input[type="password"]') as HTMLInputElement).value).toBe('sk-1');
    submit(root);
    expect(saved).toEqual([
      [
        { baseUrl: 'http://localhost:11434/v1', model: 'llama3.2:3b', apiKey: 'sk-1', fallbackToLocal: true },
        'http://localhost:11434/*',
      ],
    ]);
  });
});
