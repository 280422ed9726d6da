import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { extractPage } from '../../../core/page/extract-dom';
import { findInvisible } from '../../../core/page/visibility';

const para = (topic: string): string =>
  `<p>${`This paragraph explains ${topic} in plain words, with enough detail to look like a real article body. `.repeat(4)}</p>`;

const ARTICLE = `<!doctype html><html lang="en"><head><title>Growing Tomatoes</title></head><body>
  <nav><a href="/">Home</a> <a href="/shop">Shop</a></nav>
  <main><article>
    <h1>Growing Tomatoes</h1>
    ${para('sunlight')}
    <h2>Watering</h2>
    ${para('watering schedules')}
    <ul><li>Water at the base</li><li>Avoid wet leaves</li></ul>
    <h2>Pests</h2>
    ${para('aphids and hornworms')}
    <script>window.evil = 1</script>
  </article></main>
  <footer>Copyright 2026 Garden Site</footer>
</body></html>`;

function doc(html: string, selection = ''): Document {
  const { document } = parseHTML(html);
  // linkedom has no Selection API; the browser's Document.getSelection is stood in for on the instance.
  (document as unknown as { getSelection: () => { toString(): string } }).getSelection = () => ({ toString: () => selection });
  return document as unknown as Document;
}

describe('extractPage (linkedom documents)', () => {
  it("uses the user's selection when there is one", () => {
    const r = extractPage(doc(ARTICLE, '  Water at the base  '));
    expect(r).toMatchObject({
      kind: 'selection',
      text: 'Water at the base',
      selection: 'Water at the base',
      title: 'Growing Tomatoes',
      lang: 'en',
    });
  });

  it('uses Readability on a clone and marks headings, without mutating the page', () => {
    const d = doc(ARTICLE);
    const before = d.body.innerHTML;
    const r = extractPage(d);
    expect(r.kind).toBe('article');
    expect(r.text).toMatch(/^## Watering$/m);
    expect(r.text).toMatch(/^## Pests$/m);
    expect(r.text).toContain('- Water at the base');
    expect(r.text).not.toContain('window.evil');
    expect(r.text).not.toContain('Shop');
    expect(d.body.innerHTML).toBe(before);
  });

  it('falls back to main/body text when Readability finds no article', () => {
    const html = `<html><head><title>Dashboard</title></head><body><nav>Menu Items Here</nav>
      <div><h3>Status</h3><span>All systems are running normally today, with no incidents reported in the last day.</span>
      <div hidden>secret hidden text</div><div style="display: none">also hidden</div></div></body></html>`;
    const r = extractPage(doc(html));
    expect(r.kind).toBe('fallback');
    expect(r.text).toContain('### Status');
    expect(r.text).toContain('All systems are running normally');
    expect(r.text).not.toContain('Menu Items');
    expect(r.text).not.toContain('hidden');
  });

  describe('without computed styles (linkedom has no getComputedStyle or layout)', () => {
    // The visibility pass degrades to its attribute rules here. What only computed styles can find (a stylesheet's
    // display: none, white on white, off-screen, 1 px boxes) is proved in real Chromium by
    // tests/e2e/page-visibility.e2e.ts.
    const HTML = `<html><head><title>Dashboard</title><style>.gone { display: none }</style></head><body>
      <div><h3>Status <span hidden>secret-heading-attr</span><span style="display:none">secret-heading-style</span></h3>
      <span>All systems are running normally.</span><p aria-hidden="true">secret-aria</p>
      <p style="visibility: hidden">secret-visibility</p><p class="gone">stylesheet-hidden</p></div></body></html>`;

    it('finds hidden elements by attribute only, and cannot see stylesheet rules', () => {
      const d = doc(HTML);
      expect(d.defaultView?.getComputedStyle).toBeUndefined();
      const found = [...findInvisible(d)].map((n) => n.textContent);
      expect(found.sort()).toEqual(['secret-aria', 'secret-heading-attr', 'secret-heading-style', 'secret-visibility']);
    });

    it('leaves attribute-hidden text out of headings and text on the plain-text path', () => {
      const r = extractPage(doc(HTML));
      expect(r.kind).toBe('fallback');
      expect(r.text).toMatch(/^### Status$/m);
      expect(r.text).toContain('All systems are running normally.');
      expect(r.text).not.toMatch(/secret/);
      expect(r.text).toContain('stylesheet-hidden'); // the degradation: a class rule needs computed styles
    });
  });

  it('reports an empty page (an SPA before it renders) and a PDF document', () => {
    expect(
      extractPage(doc('<html><head><title>App</title></head><body><div id="root"></div><script>x()</script></body></html>')).kind,
    ).toBe('empty');
    const pdf = doc('<html><body><embed type="application/pdf" src="about:blank"></body></html>');
    Object.defineProperty(pdf, 'contentType', { value: 'application/pdf' });
    expect(extractPage(pdf)).toMatchObject({ kind: 'pdf', text: '' });
  });

  it('caps oversized pages and says so', () => {
    const r = extractPage(doc(ARTICLE), { maxChars: 1_000 });
    expect(r.truncated).toBe(true);
    expect(r.text.length).toBeLessThanOrEqual(1_000);
  });

  describe('never reads form values or the address’s query', () => {
    const SECRETS = ['hunter2-pw', 'csrf-token-77', 'typed-draft-text', 'prefilled-card-4111', 'chosen-option-x', 'calc-out-9'];
    const FORM = `<!doctype html><html lang="en"><head><title>Sign in</title></head><body><main><article>
      <h1>Account settings</h1>
      ${para('account security')}
      <form>
        <label>Password <input type="password" value="hunter2-pw"></label>
        <input type="hidden" name="csrf" value="csrf-token-77">
        <label>Card <input type="text" value="prefilled-card-4111" autocomplete="cc-number"></label>
        <textarea>typed-draft-text</textarea>
        <select><option selected>chosen-option-x</option></select>
        <output>calc-out-9</output>
      </form>
      ${para('two-factor sign in')}
    </article></main></body></html>`;

    /** Puts the focus in a form field whose value is (partly) selected, as Chrome's getSelection() reports it. */
    function focusedField(d: Document, selector: string, selected: string): Document {
      const field = d.querySelector(selector)!;
      Object.defineProperty(d, 'activeElement', { value: field, configurable: true });
      (d as unknown as { getSelection: () => { toString(): string } }).getSelection = () => ({ toString: () => selected });
      return d;
    }

    it('article and plain-text paths leave out passwords, hidden inputs, typed and chosen values', () => {
      const article = extractPage(doc(FORM));
      expect(article.kind).toBe('article');
      const fallback = extractPage(doc(`<html><body><div>${FORM.replace(/<\/?(?:main|article)>/g, '')}</div></body></html>`));
      for (const r of [article, fallback]) {
        expect(r.text).toContain('account security');
        for (const secret of SECRETS) expect(r.text).not.toContain(secret);
      }
    });

    it('controls outside any form (a comment box in <main>) are not read either', () => {
      const bare = FORM.replace(/<\/?form>/g, '').replace(/<\/?article>/g, '');
      const r = extractPage(doc(bare.replace(/<p>[^]*?<\/p>/g, '<span>Short note.</span>')));
      expect(r.kind).toBe('fallback');
      expect(r.text).toContain('Short note.');
      for (const secret of SECRETS) expect(r.text).not.toContain(secret);
    });

    it('a selection inside a focused password field or text box is not read', () => {
      for (const [selector, value] of [
        ['input[type=password]', 'hunter2-pw'],
        ['textarea', 'typed-draft-text'],
        ['input[autocomplete]', 'prefilled-card-4111'],
      ] as const) {
        const r = extractPage(focusedField(doc(FORM), selector, value));
        expect(r.selection).toBe('');
        expect(r.kind).not.toBe('selection');
        expect(JSON.stringify(r)).not.toContain(value);
      }
      // A selection of page text with the focus elsewhere still wins.
      const page = focusedField(doc(FORM), 'h1', 'Account settings');
      expect(extractPage(page)).toMatchObject({ kind: 'selection', selection: 'Account settings' });
    });

    it('editing surfaces (contenteditable) are never read, on any path', () => {
      const EDITOR = `<!doctype html><html lang="en"><head><title>Mail</title></head><body><main><article>
        <h1>Inbox</h1>
        ${para('message list')}
        <div contenteditable="true"><p>draft-secret-reply to the landlord</p><p>more draft-secret text</p></div>
        <div contenteditable><span>plain-attr-draft</span></div>
        <div contenteditable="plaintext-only">plaintext-draft</div>
        <div contenteditable="false">${para('not editable, readable')}</div>
        ${para('older messages')}
      </article></main></body></html>`;
      const article = extractPage(doc(EDITOR));
      const fallback = extractPage(
        doc(EDITOR.replace(/<\/?(?:main|article)>/g, '').replace(/<p>[^]*?<\/p>/g, '<span>Note.</span>')),
      );
      expect(article.kind).toBe('article');
      expect(article.text).toContain('not editable, readable');
      for (const r of [article, fallback]) {
        for (const secret of ['draft-secret', 'plain-attr-draft', 'plaintext-draft']) expect(r.text).not.toContain(secret);
      }
      // A selection inside the editor (the focus is there) is not read either.
      const focused = focusedField(doc(EDITOR), '[contenteditable="true"] p', 'draft-secret-reply');
      expect(extractPage(focused).selection).toBe('');
      expect(JSON.stringify(extractPage(focused))).not.toContain('draft-secret');
      // Nor a selection whose anchor is in the editor while the focus is elsewhere.
      const d = doc(EDITOR);
      const inEditor = d.querySelector('[contenteditable="true"] p')!.firstChild;
      (d as unknown as { getSelection: () => unknown }).getSelection = () => ({
        toString: () => 'draft-secret-reply',
        anchorNode: inEditor,
        focusNode: inEditor,
        rangeCount: 0,
      });
      expect(extractPage(d).selection).toBe('');
      // A document in design mode is all editor.
      const design = doc(EDITOR);
      Object.defineProperty(design, 'designMode', { value: 'on', configurable: true });
      expect(extractPage(design)).toMatchObject({ text: '', selection: '', kind: 'empty' });
    });

    it('a field focused inside a shadow root is found through its host, and its selection is not read', () => {
      for (const [tag, value] of [
        ['input', 'shadow-password-9'],
        ['textarea', 'shadow-draft-text'],
      ] as const) {
        const d = doc(FORM);
        const host = d.querySelector('h1')!;
        const field = d.createElement(tag);
        // linkedom has no shadow DOM focus: Chrome reports the host as document.activeElement and the field as the
        // shadow root's activeElement, which is what this stands in for.
        Object.defineProperty(host, 'shadowRoot', { value: { activeElement: field }, configurable: true });
        focusedField(d, 'h1', value);
        const r = extractPage(d);
        expect(r.selection).toBe('');
        expect(JSON.stringify(r)).not.toContain(value);
      }
    });

    it('keeps scheme, host and path of the address; drops query, fragment and credentials', () => {
      const d = doc(ARTICLE);
      Object.defineProperty(d, 'location', {
        value: { href: 'https://me:secret@shop.example.com/orders/42?session=abc123&q=private#token=xyz' },
      });
      const r = extractPage(d);
      expect(r.url).toBe('https://shop.example.com/orders/42');
      expect(JSON.stringify(r)).not.toMatch(/abc123|private|xyz|secret/);
    });
  });
});
