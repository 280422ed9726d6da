import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { extractPage } from '../../../core/page/extract-dom';

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
});
